// Compile-only declaration of the part of SLF4J 1.7's org.slf4j.Logger that
// SlowpeerHook uses (Hive 3.1 logs through SLF4J). Not SLF4J's code.
package org.slf4j;

public interface Logger {
    void warn(String format, Object... arguments);
}
