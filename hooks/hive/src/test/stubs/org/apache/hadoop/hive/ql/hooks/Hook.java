// Compile-only declaration of Hive 3.1's
// ql/src/java/org/apache/hadoop/hive/ql/hooks/Hook.java: an empty marker
// interface (Hive's carries @InterfaceAudience.Public annotations, left out).
// Not Hive's code; only what SlowpeerHook needs to compile.
package org.apache.hadoop.hive.ql.hooks;

public interface Hook {
}
