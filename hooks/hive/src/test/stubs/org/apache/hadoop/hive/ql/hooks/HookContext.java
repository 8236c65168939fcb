// Compile-only declaration of the part of Hive 3.1's
// ql/src/java/org/apache/hadoop/hive/ql/hooks/HookContext.java that
// SlowpeerHook and the test driver use: the nested enum HookType, and
// getHookType/setHookType, getQueryPlan/setQueryPlan, getConf/setConf.
// Not Hive's code.
//
// The one difference: Hive's constructors take a dozen arguments (QueryPlan,
// QueryState or, in older releases, HiveConf, the input content summaries,
// user, addresses, operation/session/thread ids, a PerfLogger, ...), which
// would drag half of Hive in. This stub has a no-argument constructor for the
// test driver instead; SlowpeerHook never constructs a HookContext, so its
// byte code does not depend on it.
package org.apache.hadoop.hive.ql.hooks;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.ql.QueryPlan;

public class HookContext {
    public static enum HookType {
        PRE_EXEC_HOOK, POST_EXEC_HOOK, ON_FAILURE_HOOK
    }

    private QueryPlan queryPlan;
    private HiveConf conf;
    private HookType hookType;

    public HookContext() {
    }

    public QueryPlan getQueryPlan() {
        return queryPlan;
    }

    public void setQueryPlan(QueryPlan queryPlan) {
        this.queryPlan = queryPlan;
    }

    public HiveConf getConf() {
        return conf;
    }

    public void setConf(HiveConf conf) {
        this.conf = conf;
    }

    public HookType getHookType() {
        return hookType;
    }

    public void setHookType(HookType hookType) {
        this.hookType = hookType;
    }
}
