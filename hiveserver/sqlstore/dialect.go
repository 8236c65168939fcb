package sqlstore

import "database/sql"

// dialect holds what differs between SQLite and MySQL: column types and
// the upsert syntax. The tables, columns and their meaning are the same
// (the package comment lists them).
type dialect struct {
	name string
	// createVersionTable and seedVersion make sure slowpeer_schema has the
	// component's row (version 0 when new).
	createVersionTable string
	seedVersion        string
	// versionTableExists counts the slowpeer_schema tables (0 or 1) in
	// the catalog, so the version is read without creating anything.
	versionTableExists string
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

// The statements both dialects share.
const (
	lookupQuery  = `SELECT hook, queryStr, jobName, preTime, postTime FROM hive_queries WHERE server = ? AND queryId = ?`
	openQueries  = `SELECT server, queryId, jobName, preTime FROM hive_queries WHERE postTime IS NULL AND preTime IS NOT NULL`
	loadJobs     = `SELECT jobName, finished, totalMs FROM hive_jobs`
	loadServers  = `SELECT server, lastEventTime FROM hive_servers`
	readVersion  = `SELECT version FROM slowpeer_schema WHERE component = ?`
	writeVersion = `UPDATE slowpeer_schema SET version = ? WHERE component = ?`
)
