// Compile-only declaration of Hive 3.1's
// ql/src/java/org/apache/hadoop/hive/ql/hooks/ExecuteWithHookContext.java:
// the interface of hooks in hive.exec.pre.hooks, hive.exec.post.hooks and
// hive.exec.failure.hooks. Not Hive's code; same package, name and signature.
package org.apache.hadoop.hive.ql.hooks;

public interface ExecuteWithHookContext extends Hook {
    void run(HookContext hookContext) throws Exception;
}
