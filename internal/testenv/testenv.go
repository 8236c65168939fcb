// Package testenv finds the real services the tests talk to (MariaDB,
// ZooKeeper, etcd, promtool, Chromium, a JDK), which scripts/services
// starts on loopback and announces in SLOWPEER_TEST_* variables.
//
// Each helper skips the test when its service is missing, unless
// SLOWPEER_REQUIRE_SERVICES=1 (as scripts/test and CI set it), where it
// fails instead: in CI no test of a real service may quietly skip.
//
// Start runs a long-running component under a test and stops it at the
// end.
package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// RequireEnv is the variable that turns every skip of this package into a
// failure.
const RequireEnv = "SLOWPEER_REQUIRE_SERVICES"

// The variables scripts/services prints.
const (
	MySQLDSNEnv  = "SLOWPEER_TEST_MYSQL_DSN" // a go-sql-driver DSN of a user that may create databases
	ZooKeeperEnv = "SLOWPEER_TEST_ZK"        // host:port[,host:port] of a ZooKeeper
	EtcdEnv      = "SLOWPEER_TEST_ETCD"      // host:port[,host:port] of an etcd
)

// Missing skips t, or fails it when RequireEnv is 1, saying what is missing.
func Missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s, and %s=1", what, RequireEnv)
	}
	t.Skip(what)
}

// Env returns the value of the variable name, or calls Missing.
func Env(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		Missing(t, name+" is not set")
	}
	return v
}

// Command returns the path of the program name, or calls Missing.
func Command(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" is not on PATH")
	}
	return path
}

// ZooKeeper returns the addresses of the test ZooKeeper, or calls Missing.
func ZooKeeper(t testing.TB) []string {
	t.Helper()
	return strings.Split(Env(t, ZooKeeperEnv), ",")
}

// Etcd returns the addresses of the test etcd, or calls Missing.
func Etcd(t testing.TB) []string {
	t.Helper()
	return strings.Split(Env(t, EtcdEnv), ",")
}
