package hiveserver

import "database/sql"

// dialect holds what differs between SQLite and MySQL: column types and
// the upsert syntax. The tables, columns and their meaning are the same:
//
//	hive_queries    one row per statement (the table of the original design)
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
type dialect struct {
	name string
	// createVersionTable and seedVersion make sure slowpeer_schema has the
	// component's row (version 0 when new).
	createVersionTable string
	seedVersion        string
	// migrations[i] takes the schema from version i to i+1.
	migrations [][]string
	// txOptions are those of the writing transaction.
	txOptions *sql.TxOptions
	// lockRows ends the read of a batch's rows: on MySQL it locks them
	// until the commit, as several service replicas may write one row.
	lockRows string
	// upsertQueries, upsertJobs and upsertServers end the multi-row
	// INSERTs of a batch: a row that exists takes the merged values (but
	// keeps a stored non-empty queryStr), a job adds to its history, a
	// server keeps its latest lastEventTime.
	upsertQueries, upsertJobs, upsertServers string
}

// schemaComponent is this package's key in slowpeer_schema.
const schemaComponent = "hiveserver"

var sqliteDialect = &dialect{
	name:               "sqlite",
	createVersionTable: `CREATE TABLE IF NOT EXISTS slowpeer_schema (component TEXT PRIMARY KEY, version INTEGER NOT NULL)`,
	seedVersion:        `INSERT OR IGNORE INTO slowpeer_schema (component, version) VALUES (?, 0)`,
	migrations: [][]string{{
		`CREATE TABLE hive_queries (
			server   TEXT NOT NULL,
			queryId  TEXT NOT NULL,
			hook     TEXT NOT NULL,
			queryStr TEXT NOT NULL,
			jobName  TEXT NOT NULL,
			preTime  INTEGER,
			postTime INTEGER,
			PRIMARY KEY (server, queryId))`,
		// Only open statements are in this index: loading them at start
		// reads it alone.
		`CREATE INDEX hive_queries_open ON hive_queries (server) WHERE postTime IS NULL`,
		`CREATE TABLE hive_jobs (
			jobName  TEXT PRIMARY KEY,
			finished INTEGER NOT NULL,
			totalMs  INTEGER NOT NULL)`,
		`CREATE TABLE hive_servers (
			server        TEXT PRIMARY KEY,
			lastEventTime INTEGER NOT NULL)`,
	}},
	// The transaction is BEGIN IMMEDIATE (_txlock): one writer at a time.
	txOptions: nil,
	lockRows:  "",
	upsertQueries: ` ON CONFLICT (server, queryId) DO UPDATE SET hook = excluded.hook, jobName = excluded.jobName,
		preTime = excluded.preTime, postTime = excluded.postTime,
		queryStr = CASE WHEN LENGTH(queryStr) = 0 THEN excluded.queryStr ELSE queryStr END`,
	upsertJobs: ` ON CONFLICT (jobName) DO UPDATE SET finished = finished + excluded.finished,
		totalMs = totalMs + excluded.totalMs`,
	upsertServers: ` ON CONFLICT (server) DO UPDATE SET lastEventTime = max(lastEventTime, excluded.lastEventTime)`,
}

// mysqlTable are the options of every MySQL table: InnoDB for
// transactions, utf8mb4 for any text Hive sends, binary collation so that
// ids compare byte by byte as in SQLite.
const mysqlTable = ` ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`

var mysqlDialect = &dialect{
	name: "mysql",
	createVersionTable: `CREATE TABLE IF NOT EXISTS slowpeer_schema (
		component VARCHAR(64) NOT NULL PRIMARY KEY,
		version   INT NOT NULL)` + mysqlTable,
	seedVersion: `INSERT IGNORE INTO slowpeer_schema (component, version) VALUES (?, 0)`,
	migrations: [][]string{{
		// server holds a reports.ValidateNode id: a 255-byte host, brackets
		// and a port. The primary key stays under InnoDB's 3072-byte limit.
		`CREATE TABLE hive_queries (
			server   VARCHAR(270) NOT NULL,
			queryId  VARCHAR(255) NOT NULL,
			hook     VARCHAR(16)  NOT NULL,
			queryStr MEDIUMTEXT   NOT NULL,
			jobName  VARCHAR(255) NOT NULL,
			preTime  BIGINT NULL,
			postTime BIGINT NULL,
			PRIMARY KEY (server, queryId),
			KEY hive_queries_open (postTime))` + mysqlTable,
		`CREATE TABLE hive_jobs (
			jobName  VARCHAR(255) NOT NULL PRIMARY KEY,
			finished BIGINT NOT NULL,
			totalMs  BIGINT NOT NULL)` + mysqlTable,
		`CREATE TABLE hive_servers (
			server        VARCHAR(270) NOT NULL PRIMARY KEY,
			lastEventTime BIGINT NOT NULL)` + mysqlTable,
	}},
	// READ COMMITTED with FOR UPDATE: the rows read stay locked until the
	// commit, and no gap locks make replicas that insert side by side
	// deadlock; two replicas inserting one new row meet as a duplicate
	// key, and the loser's transaction is tried again.
	txOptions: &sql.TxOptions{Isolation: sql.LevelReadCommitted},
	lockRows:  ` FOR UPDATE`,
	// VALUES() rather than the row alias of MySQL 8.0.19+: MariaDB has
	// only VALUES().
	upsertQueries: ` ON DUPLICATE KEY UPDATE hook = VALUES(hook), jobName = VALUES(jobName),
		preTime = VALUES(preTime), postTime = VALUES(postTime),
		queryStr = IF(LENGTH(queryStr) = 0, VALUES(queryStr), queryStr)`,
	upsertJobs: ` ON DUPLICATE KEY UPDATE finished = finished + VALUES(finished),
		totalMs = totalMs + VALUES(totalMs)`,
	upsertServers: ` ON DUPLICATE KEY UPDATE lastEventTime = GREATEST(lastEventTime, VALUES(lastEventTime))`,
}

// The statements both dialects share.
const (
	lookupQuery  = `SELECT hook, queryStr, jobName, preTime, postTime FROM hive_queries WHERE server = ? AND queryId = ?`
	openQueries  = `SELECT server, queryId, jobName, preTime FROM hive_queries WHERE postTime IS NULL AND preTime IS NOT NULL`
	loadJobs     = `SELECT jobName, finished, totalMs FROM hive_jobs`
	loadServers  = `SELECT server, lastEventTime FROM hive_servers`
	readVersion  = `SELECT version FROM slowpeer_schema WHERE component = ?`
	writeVersion = `UPDATE slowpeer_schema SET version = ? WHERE component = ?`
)
