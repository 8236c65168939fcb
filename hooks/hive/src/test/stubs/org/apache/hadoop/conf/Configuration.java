// Compile-only declaration of the part of Hadoop's
// hadoop-common/src/main/java/org/apache/hadoop/conf/Configuration.java that
// SlowpeerHook and the test driver use: get(String) and set(String, String).
// Not Hadoop's code: a plain map, without Hadoop's variable expansion or key
// deprecation.
package org.apache.hadoop.conf;

import java.util.HashMap;
import java.util.Map;

public class Configuration {
    private final Map<String, String> values = new HashMap<String, String>();

    public String get(String name) {
        return values.get(name);
    }

    public void set(String name, String value) {
        values.put(name, value);
    }
}
