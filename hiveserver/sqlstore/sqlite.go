package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// sqlitePragmas make every connection wait for a lock rather than fail,
// use the write-ahead log, fsync the log at every commit (synchronous=FULL:
// a committed event survives a power cut, not only a killed process) and
// start writing transactions with BEGIN IMMEDIATE.
const sqlitePragmas = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"

func openSQLite(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite path %q: ? and # are not allowed in the path", path)
	}
	db, err := sql.Open("sqlite", path+sqlitePragmas)
	if err != nil {
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	// One writer (a Picker's committer) and a few readers.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	return &Store{db: db, d: sqliteDialect, desc: "sqlite:" + path, recheck: SchemaRecheck}, nil
}

var sqliteDialect = &dialect{
	name:               "sqlite",
	createVersionTable: `CREATE TABLE IF NOT EXISTS slowpeer_schema (component TEXT PRIMARY KEY, version INTEGER NOT NULL)`,
	seedVersion:        `INSERT OR IGNORE INTO slowpeer_schema (component, version) VALUES (?, 0)`,
	versionTableExists: `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'slowpeer_schema'`,
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
