// Package hiveserver sends a new Hive connection to the least-loaded
// HiveServer that is not on a slow host.
//
// Every HiveServer runs a hook (Hive's ExecuteWithHookContext, installed in
// hive.exec.pre.hooks, hive.exec.post.hooks and hive.exec.failure.hooks)
// that posts an [Event] when a statement starts (PRE_EXEC_HOOK) and when it
// ends (POST_EXEC_HOOK or ON_FAILURE_HOOK). [ParseEvent] reads the hook's
// form; a [Store] keeps one row per statement (package
// [github.com/slowpeer/slowpeer/hiveserver/sqlstore] in SQLite or
// MySQL/MariaDB, so the workload survives a restart; [MemoryStore] in
// memory); a [Picker] keeps the running statements of every HiveServer in
// memory and answers [Picker.Pick] and [Picker.Servers].
//
// # Lifecycle
//
// [New] builds a Picker and does no I/O; [Picker.Refresh] loads the
// workload from the store (call it before serving); [Picker.Run] commits
// the events [Picker.Ingest] receives, one goroutine for all of them, and
// reloads the workload every Config.RefreshInterval, until its context
// ends. A transaction under way then may still finish for a few seconds,
// and Run returns once it has.
//
// # Load
//
// A statement is running from its PRE event until its POST or FAILURE
// event, unless it started longer than Config.QueryTimeout ago: then its
// end was lost (the HiveServer died, the hook's request failed) and it is
// counted as lost instead. The load of a HiveServer is the sum, over its
// running statements, of their expected remaining time: the mean duration
// of the finished statements with the same jobName (the platform sets
// mapred.job.name on every job, so a job's history predicts its cost)
// minus how long the statement has run, never less than
// Config.MinRemaining; a statement with no history (or no jobName) counts
// Config.DefaultCost. Loads are in seconds wherever they leave the package
// (JSON "load").
//
// # Pick
//
// A HiveServer is known when it is in Config.Servers, in one of
// Config.Sources (a registry such as ZooKeeper), or has sent an event in
// the last Config.ServerExpiry. It is eligible when it is known and its
// host is not one of the slow hosts the caller passes (the hosts of the
// NameNode tracker's top dfs.namenode.max.slowpeer.collect.nodes slow
// nodes, as HDFS's exclude-slow-nodes block placement uses them). The pick
// is the eligible HiveServer with the least load, then the fewest running
// statements, ties broken at random.
//
// # Durability
//
// [Picker.Ingest] returns nil only once the store has committed the event
// (package sqlstore says how durable that is). Concurrent Ingest calls
// share one transaction (group commit), so one fsync serves many events.
// The merge of events into rows, the same for every store, is
// [MergeBatch]: a Store reads the rows a batch touches, merges and writes.
package hiveserver
