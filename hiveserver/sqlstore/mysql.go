package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-sql-driver/mysql"
)

func openMySQL(dsn string) (*Store, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysql DSN: %w", err)
	}
	if cfg.DBName == "" {
		return nil, errors.New("mysql DSN names no database (user:pass@tcp(host:3306)/DATABASE)")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if _, ok := cfg.Params["sql_mode"]; !ok {
		// Strict: a value that does not fit is an error, never cut.
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params["sql_mode"] = "'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'"
	}
	// A batch's statements differ in length, so they are not prepared:
	// the driver interpolates their arguments, escaping them for utf8mb4,
	// and each costs one round trip.
	cfg.InterpolateParams = true
	cfg.Logger = driverLog{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mysql DSN: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	db.SetConnMaxLifetime(5 * time.Minute)
	return &Store{db: db, d: mysqlDialect, desc: fmt.Sprintf("mysql:%s/%s", cfg.Addr, cfg.DBName), recheck: SchemaRecheck}, nil
}

// driverLog takes the driver's own messages (a bad idle connection
// closed, a broken pipe: the database went away), which it would print on
// stderr beside the service's log, to slog at debug level; the store's
// errors say what failed.
type driverLog struct{}

func (driverLog) Print(v ...any) { slog.Debug("mysql driver: " + fmt.Sprint(v...)) }

// lostRace reports whether err is MySQL telling one of two concurrent
// writers of a row to try again.
func lostRace(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	switch me.Number {
	case 1213, 1205, 1062: // ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT, ER_DUP_ENTRY
		return true
	}
	return false
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
	versionTableExists: `SELECT COUNT(*) FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'slowpeer_schema'`,
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
