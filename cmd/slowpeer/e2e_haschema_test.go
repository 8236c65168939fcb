//go:build e2e

package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/internal/testenv"
)

// testMySQL creates a database of its own on the test MariaDB, dropped at
// the end, and returns its -store DSN and a connection to it.
func testMySQL(t *testing.T) (string, *sql.DB) {
	t.Helper()
	cfg, err := mysql.ParseDSN(testenv.Env(t, testenv.MySQLDSNEnv))
	if err != nil {
		t.Fatalf("%s: %v", testenv.MySQLDSNEnv, err)
	}
	var b [4]byte
	rand.Read(b[:])
	name := "slowpeer_ha_" + hex.EncodeToString(b[:])
	admin := cfg.Clone()
	admin.DBName = ""
	db, err := sql.Open("mysql", admin.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE " + name); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
		db.Close()
	})
	cfg.DBName = name
	return "mysql:" + cfg.FormatDSN(), db
}

// dbName is the database of a -store mysql:DSN.
func dbName(dsn string) string {
	cfg, _ := mysql.ParseDSN(strings.TrimPrefix(dsn, "mysql:"))
	return cfg.DBName
}

// tablesIn counts the tables of database dsn names.
func tablesIn(t *testing.T, db *sql.DB, dsn string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?`, dbName(dsn)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// readBody reads and closes resp's body.
func readBody(resp *http.Response) (string, error) {
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// pickAt asks the replica at hostport for a HiveServer: the status code
// and body.
func pickAt(hostport string) (int, string) {
	client := http.Client{Timeout: time.Second}
	resp, err := client.Get("http://" + hostport + hiveserver.PickPath)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Replicas that share a MariaDB store leave its schema to their leader.
// While a leader (here a registered Replica of the test) has not
// migrated it, two replicas create no table, refuse picks and hook events
// saying why, and keep running; once that leader is gone, the replica
// elected migrates the schema and both serve picks. A replica that finds
// a schema newer than it knows exits with an error that says so.
func TestHASchemaLeaderMigrates(t *testing.T) {
	zkServers := testenv.ZooKeeper(t)
	dsn, db := testMySQL(t)
	bin := buildSlowpeer(t)
	var b [6]byte
	rand.Read(b[:])
	tag := "slowpeer-test-schema-" + hex.EncodeToString(b[:])
	registry := "zk://" + strings.Join(zkServers, ",") + "/" + tag
	conn := haZooKeeper(t, zkServers)
	t.Cleanup(func() { zkDeleteTree(conn, "/"+tag) })

	// A leader that never migrates, until it goes.
	u, err := discovery.ParseRegistryURL(registry)
	if err != nil {
		t.Fatal(err)
	}
	lcfg := discovery.DefaultReplicaConfig()
	lcfg.Registry, lcfg.Timeout = u, 2*time.Second
	lcfg.Self = discovery.Member{Server: "127.0.0.1:1", Scheme: "http", Version: devVersion}
	lcfg.Logger = slog.New(slog.DiscardHandler)
	lcfg.Lead = func(ctx context.Context) error { <-ctx.Done(); return nil }
	lone, err := discovery.NewReplica(lcfg)
	if err != nil {
		t.Fatal(err)
	}
	stopLone := testenv.Start(t, lone.Run)
	testenv.WaitFor(t, "the test's replica to lead", 20*time.Second, lone.Leading)

	ports := freePorts(t, 3)
	start := func(name, port string) *proc {
		return startProc(t, bin, name, port, "namenode", "-listen", port, "-conf", t.TempDir(), "-store", dsn,
			"-registry", registry, "-hiveservers", "127.0.0.1:10000", "-state-file", "none",
			"-D", "slowpeer.registry.lease.timeout=2s")
	}
	replicas := []*proc{start("replica 0", ports[0]), start("replica 1", ports[1])}
	for _, p := range ports[:2] {
		testenv.WaitFor(t, "the replica to name the test's leader", 20*time.Second, func() bool {
			c, err := clusterOf(p)
			return err == nil && c.Leader != nil && *c.Leader == "127.0.0.1:1"
		})
	}
	for i, r := range replicas {
		testenv.WaitFor(t, fmt.Sprintf("replica %d's picker to wait for the store", i), 20*time.Second, func() bool {
			return strings.Contains(r.logText(), "HiveServer store not ready")
		})
	}
	for i, p := range ports[:2] {
		code, body := pickAt(p)
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "schema not ready: version 0, want 1") {
			t.Errorf("replica %d picks before the migration: %d %s", i, code, body)
		}
		form := url.Values{"server": {"127.0.0.1:10000"}, "hook": {"PRE_EXEC_HOOK"}, "queryId": {"q1"},
			"queryStr": {"SELECT%201"}, "jobName": {""}, "timestamp": {fmt.Sprint(time.Now().UnixMilli())}}
		resp, err := http.PostForm("http://"+p+hiveserver.SendPath, form)
		if err != nil {
			t.Fatal(err)
		}
		body, _ = readBody(resp)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "schema not ready") {
			t.Errorf("replica %d takes a hook event before the migration: %s %s", i, resp.Status, body)
		}
		if !replicas[i].running() {
			t.Fatalf("replica %d exited while the schema was missing:\n%s", i, replicas[i].logText())
		}
		if !strings.Contains(replicas[i].logText(), "HiveServer store not ready") {
			t.Errorf("replica %d did not say it waits for the store:\n%s", i, replicas[i].logText())
		}
	}
	if n := tablesIn(t, db, dsn); n != 0 {
		t.Fatalf("followers created %d tables", n)
	}

	gone := time.Now()
	stopLone()
	for i, p := range ports[:2] {
		testenv.WaitFor(t, fmt.Sprintf("replica %d to pick once a replica led and migrated", i), 20*time.Second, func() bool {
			code, body := pickAt(p)
			return code == http.StatusOK && strings.Contains(body, `"server":"127.0.0.1:10000"`)
		})
	}
	t.Logf("both replicas pick %v after the lone leader left", time.Since(gone).Round(time.Millisecond))
	c, err := clusterOf(ports[0])
	if err != nil || c.Leader == nil {
		t.Fatalf("cluster: %+v, %v", c, err)
	}
	for i, p := range ports[:2] {
		migrated := strings.Contains(replicas[i].logText(), "leader migrated the hive event store's schema")
		if leads := *c.Leader == p; migrated != leads {
			t.Errorf("replica %d leads %v, migrated %v:\n%s", i, leads, migrated, replicas[i].logText())
		}
	}
	if n := tablesIn(t, db, dsn); n != 4 {
		t.Errorf("%d tables after the migration, want 4", n)
	}

	// A schema newer than this slowpeer knows: a clear error, at once.
	if _, err := db.Exec(`UPDATE ` + dbName(dsn) + `.slowpeer_schema SET version = 2`); err != nil {
		t.Fatal(err)
	}
	newer := start("replica 2", ports[2])
	select {
	case <-newer.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("a replica runs on a schema newer than it knows")
	}
	if log := newer.logText(); newer.err == nil || !strings.Contains(log, "schema version 2 is newer than this slowpeer knows (1): run a newer slowpeer") {
		t.Errorf("replica on a newer schema: %v\n%s", newer.err, log)
	}
}

// -registry zk://USER:PASSWORD@: the replica registers with ZooKeeper
// digest credentials, clients find it without them, and its log never
// shows the password.
func TestRegistryZooKeeperDigest(t *testing.T) {
	zkServers := testenv.ZooKeeper(t)
	var b [6]byte
	rand.Read(b[:])
	tag := "slowpeer-test-digest-" + hex.EncodeToString(b[:])
	conn := haZooKeeper(t, zkServers)
	if err := conn.AddAuth("digest", []byte("slowpeer:s3cret")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zkDeleteTree(conn, "/"+tag) })
	hosts := strings.Join(zkServers, ",")
	addr, stop := startNamenode(t, "-registry", "zk://slowpeer:s3cret@"+hosts+"/"+tag, "-hiveservers", "127.0.0.1:10000",
		"-D", "slowpeer.registry.lease.timeout=2s")
	testenv.WaitFor(t, "the replica to lead", 20*time.Second, func() bool {
		c, err := clusterOf(addr)
		return err == nil && c.Leader != nil && *c.Leader == addr
	})
	if code, out, errs := runCmd(t, "", "hiveserver", "pick", "-namenode", "zk://"+hosts+"/"+tag); code != 0 || out != "127.0.0.1:10000\n" {
		t.Errorf("pick through the registry without credentials: exit %d, %q %s", code, out, errs)
	}
	acl, _, err := conn.GetACL("/" + tag + "/namenodes")
	if err != nil || len(acl) != 2 || acl[0].Scheme != "world" || acl[0].Perms != 1 || acl[1].Scheme != "digest" {
		t.Errorf("ACL of the registrations: %v, %v", acl, err)
	}
	if _, logs := stop(); strings.Contains(logs, "s3cret") || !strings.Contains(logs, "slowpeer:xxxxx@") {
		t.Errorf("the log shows the password, or not the user:\n%s", logs)
	}
}
