// Package sqlstore keeps the hook events of package hiveserver in SQL:
// SQLite (embedded, through modernc.org/sqlite, without cgo) or
// MySQL/MariaDB (through github.com/go-sql-driver/mysql, shared by several
// service replicas). A [Store] is a hiveserver.Store; [Open] picks the
// dialect by the scheme of the DSN, as the -store flag gives it:
// "sqlite:PATH" or "mysql:DSN".
//
// # Tables
//
// One row per statement, the table of the original design:
//
//	hive_queries    one row per statement
//	  server        the HiveServer, "host:port"               primary key, 1/2
//	  queryId       Hive's query id                           primary key, 2/2
//	  hook          PRE_EXEC_HOOK while running, else the hook that ended it
//	  queryStr      the statement's text
//	  jobName       its mapred.job.name, '' when unset
//	  preTime       start, ms since the epoch; NULL until the PRE event
//	  postTime      end, ms since the epoch; NULL until the POST/FAILURE event
//	hive_jobs       finished statements per jobName, kept in the same
//	                transactions as hive_queries so loading it is cheap
//	  jobName, finished (count), totalMs (sum of durations)
//	hive_servers    HiveServers that sent events
//	  server, lastEventTime (ms since the epoch, the latest event's timestamp)
//	slowpeer_schema the schema version of each component ('hiveserver')
//	  component, version
//
// Open creates the tables or migrates them to the version this package
// knows, and refuses a schema newer than that: what a lone service does.
// Service replicas that share a MySQL store leave the schema to their
// leader: each opens it with Connect, which creates and alters nothing,
// and the leader alone calls Store.Migrate. Until the schema is the
// version this package knows, the store's methods fail with a
// *SchemaError that is hiveserver.ErrStoreNotReady, and a Picker waits.
//
// # Durability
//
// Commit returns only once its transaction is committed: SQLite runs in
// WAL mode with synchronous=FULL (the WAL is fsynced at every commit),
// MySQL/MariaDB commits with the server's innodb_flush_log_at_trx_commit
// (1, its default, is durable). A batch of events takes a handful of
// statements whatever its size: one read of its rows (locked on MySQL),
// the merge in memory (hiveserver.MergeBatch), one multi-row upsert of the
// rows that changed, one of the job histories and one of the servers.
package sqlstore
