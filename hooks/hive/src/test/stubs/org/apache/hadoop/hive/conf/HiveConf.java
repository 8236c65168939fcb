// Compile-only declaration of Hive 3.1's
// common/src/java/org/apache/hadoop/hive/conf/HiveConf.java as far as
// SlowpeerHook and the test driver use it: a Configuration with a public
// no-argument constructor. Not Hive's code.
package org.apache.hadoop.hive.conf;

import org.apache.hadoop.conf.Configuration;

public class HiveConf extends Configuration {
    public HiveConf() {
    }
}
