package io.slowpeer.hive;

import java.io.FileInputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.ql.QueryPlan;
import org.apache.hadoop.hive.ql.hooks.ExecuteWithHookContext;
import org.apache.hadoop.hive.ql.hooks.HookContext;

/**
 * HookDriver runs SlowpeerHook as Hive would, for the Go test of the hook
 * (hooks/hive/hook_test.go). Its one argument is a properties file:
 *
 * <pre>
 * runs=N
 * run.I.hook=PRE_EXEC_HOOK|POST_EXEC_HOOK|ON_FAILURE_HOOK
 * run.I.queryId=...
 * run.I.queryStr=...
 * run.I.conf.KEY=VALUE     (any number; set on the run's HiveConf)
 * </pre>
 *
 * For each run, 1 to N, it loads the hook by name as Hive's HookUtils does,
 * writes "--- run I" to stderr (the hook logs there after it), calls the
 * hook, and prints "run I start=MS end=MS threw=-|EXCEPTION" to stdout.
 *
 * <p>With a properties file of "forms=N" and form.I.{server, hook, queryId,
 * queryStr, jobName, timestamp}, it prints instead the form body the hook
 * sends for each, one a line.
 */
public final class HookDriver {
    private HookDriver() {
    }

    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        try (InputStream in = new FileInputStream(args[0])) {
            p.load(in);
        }
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        System.setErr(new PrintStream(System.err, true, "UTF-8"));
        if (p.getProperty("forms") != null) {
            for (int i = 1, n = Integer.parseInt(p.getProperty("forms")); i <= n; i++) {
                String f = "form." + i + ".";
                out.println(SlowpeerHook.form(p.getProperty(f + "server"), p.getProperty(f + "hook"),
                    p.getProperty(f + "queryId"), p.getProperty(f + "queryStr"), p.getProperty(f + "jobName"),
                    Long.parseLong(p.getProperty(f + "timestamp"))));
            }
            return;
        }
        int runs = Integer.parseInt(p.getProperty("runs"));
        for (int i = 1; i <= runs; i++) {
            String prefix = "run." + i + ".";
            HiveConf conf = new HiveConf();
            for (String name : p.stringPropertyNames()) {
                if (name.startsWith(prefix + "conf.")) {
                    conf.set(name.substring((prefix + "conf.").length()), p.getProperty(name));
                }
            }
            QueryPlan plan = new QueryPlan();
            plan.setQueryId(p.getProperty(prefix + "queryId"));
            plan.setQueryString(p.getProperty(prefix + "queryStr"));
            HookContext ctx = new HookContext();
            ctx.setConf(conf);
            ctx.setQueryPlan(plan);
            ctx.setHookType(HookContext.HookType.valueOf(p.getProperty(prefix + "hook")));

            ExecuteWithHookContext hook = (ExecuteWithHookContext) Class.forName("io.slowpeer.hive.SlowpeerHook")
                .getDeclaredConstructor().newInstance();
            System.err.println("--- run " + i);
            long start = System.currentTimeMillis();
            String threw = "-";
            try {
                hook.run(ctx);
            } catch (Throwable t) {
                threw = t.toString().replace('\n', ' ');
            }
            long end = System.currentTimeMillis();
            out.println("run " + i + " start=" + start + " end=" + end + " threw=" + threw);
        }
    }
}
