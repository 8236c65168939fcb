//go:build e2e

package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// gate is a TCP relay to a server that the test opens and closes: closed,
// it drops every connection and refuses new ones, as a server that went
// away; opened, it relays again on the same address.
type gate struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
	wg     sync.WaitGroup
}

func newGate(t *testing.T, target string) *gate {
	g := &gate{t: t, target: target, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.addr = ln.Addr().String()
	g.serve(ln)
	t.Cleanup(func() { g.close(); g.wg.Wait() })
	return g
}

func (g *gate) serve(ln net.Listener) {
	g.mu.Lock()
	g.ln = ln
	g.mu.Unlock()
	g.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", g.target)
			if err != nil {
				c.Close()
				continue
			}
			g.mu.Lock()
			g.conns[c], g.conns[up] = true, true
			g.mu.Unlock()
			g.wg.Go(func() { io.Copy(up, c); up.Close() })
			g.wg.Go(func() { io.Copy(c, up); c.Close() })
		}
	})
}

// close drops every connection and stops listening.
func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ln != nil {
		g.ln.Close()
		g.ln = nil
	}
	for c := range g.conns {
		c.Close()
	}
	clear(g.conns)
}

// open listens again on the same address.
func (g *gate) open() {
	ln, err := net.Listen("tcp", g.addr)
	if err != nil {
		g.t.Fatalf("listen again on %s: %v", g.addr, err)
	}
	g.serve(ln)
}

// hookClient posts statement starts to one service and keeps those it
// acknowledged.
type hookClient struct {
	addr  string
	n     int
	acked []string
}

// post sends one start and returns the status and the answer.
func (h *hookClient) post() (int, string) {
	h.n++
	id := fmt.Sprintf("q%d", h.n)
	form := url.Values{"server": {"127.0.0.1:10000"}, "hook": {"PRE_EXEC_HOOK"}, "queryId": {id},
		"queryStr": {"SELECT+1"}, "jobName": {"j"}, "timestamp": {fmt.Sprint(time.Now().UnixMilli())}}
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.PostForm("http://"+h.addr+hiveserver.SendPath, form)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		h.acked = append(h.acked, id)
	}
	return resp.StatusCode, string(b)
}

// running is the number of statements the service runs on the
// HiveServer.
func running(t *testing.T, addr string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/v1/hiveservers")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []struct{ Running int }
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list) != 1 {
		t.Fatalf("/v1/hiveservers: %+v, %v", list, err)
	}
	return list[0].Running
}

// heartbeatAnswered posts a heartbeat and reports whether it got 200.
func heartbeatAnswered(addr, node string) bool {
	body, _ := json.Marshal(reports.Heartbeat{Node: node})
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Post("http://"+addr+reports.HeartbeatPath, "application/json", bytes.NewReader(body))
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// MariaDB goes away under a running service and comes back: meanwhile
// hook events get 503 naming the store, heartbeats and reads are
// answered; after, events are stored again without a restart, and every
// event acknowledged is in the database.
func TestStoreMySQLAwayAndBack(t *testing.T) {
	dsn, db := testMySQL(t)
	cfg, err := mysql.ParseDSN(strings.TrimPrefix(dsn, "mysql:"))
	if err != nil {
		t.Fatal(err)
	}
	g := newGate(t, cfg.Addr)
	cfg.Addr = g.addr
	addr, _ := startNamenode(t, "-store", "mysql:"+cfg.FormatDSN(), "-hiveservers", "127.0.0.1:10000")
	h := &hookClient{addr: addr}
	for range 3 {
		if code, body := h.post(); code != http.StatusOK {
			t.Fatalf("hook event with the database up: %d %s", code, body)
		}
	}

	g.close()
	for range 3 {
		start := time.Now()
		code, body := h.post()
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "mysql:") {
			t.Errorf("hook event with the database away: %d %s; want 503 naming the store", code, body)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("the refusal took %v", took)
		}
	}
	if !heartbeatAnswered(addr, "10.0.0.1:9866") {
		t.Error("a heartbeat was not answered with the database away")
	}
	if r, err := http.Get("http://" + addr + namenode.SlowPeersPath); err != nil || r.StatusCode != 200 {
		t.Errorf("/slowpeers with the database away: %v, %v", r, err)
	} else {
		r.Body.Close()
	}

	g.open()
	testenv.WaitFor(t, "a hook event stored once the database is back", 30*time.Second, func() bool {
		code, _ := h.post()
		return code == http.StatusOK
	})
	for range 3 {
		if code, body := h.post(); code != http.StatusOK {
			t.Fatalf("hook event once the database is back: %d %s", code, body)
		}
	}
	assertStored(t, db, dbName(dsn), h.acked)
	if got := running(t, addr); got != len(h.acked) {
		t.Errorf("the service runs %d statements; %d were acknowledged", got, len(h.acked))
	}
}

// assertStored fails unless database name of db holds every statement of
// ids.
func assertStored(t *testing.T, db *sql.DB, name string, ids []string) {
	t.Helper()
	rows, err := db.Query(`SELECT queryId FROM ` + name + `.hive_queries`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	stored := map[string]bool{}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		stored[id] = true
	}
	for _, id := range ids {
		if !stored[id] {
			t.Errorf("acknowledged statement %s is not in the database", id)
		}
	}
}

// tmpfs mounts a file system of size bytes on a new directory, removed at
// the end of the test; it needs root.
func tmpfs(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Missing(t, "mounting a small file system needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Fatalf("mount a tmpfs: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file into dir until the file system is full, and returns
// it.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	return path
}

// The SQLite store and the state file on a file system that fills up: hook
// events get 503 saying the disk is full, heartbeats are answered, the
// state file keeps its last good version and the log says why; once
// there is room again, both work without a restart, and a restart finds
// every acknowledged event and the state.
func TestStoreAndStateOnFullDisk(t *testing.T) {
	dir := tmpfs(t, 1<<20)
	store, state := filepath.Join(dir, "hive.db"), filepath.Join(dir, "state.json")
	args := []string{"-store", "sqlite:" + store, "-state-file", state, "-hiveservers", "127.0.0.1:10000",
		"-D", "dfs.heartbeat.interval=100ms"}
	addr, stop := startNamenode(t, args...)
	h := &hookClient{addr: addr}
	for range 3 {
		if code, body := h.post(); code != http.StatusOK {
			t.Fatalf("hook event with room: %d %s", code, body)
		}
	}
	if !heartbeatAnswered(addr, "10.0.0.1:9866") {
		t.Fatal("heartbeat refused")
	}
	testenv.WaitFor(t, "the state file", 10*time.Second, func() bool {
		b, err := os.ReadFile(state)
		return err == nil && strings.Contains(string(b), "10.0.0.1:9866")
	})

	filler := fill(t, dir)
	refused := 0
	for range 20 {
		code, body := h.post()
		if code == http.StatusOK {
			continue // a page still free
		}
		refused++
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "full") {
			t.Errorf("hook event on a full disk: %d %s; want 503 saying so", code, body)
		}
	}
	if refused == 0 {
		t.Fatal("no hook event was refused on a full disk")
	}
	for i := range 5 {
		if !heartbeatAnswered(addr, fmt.Sprintf("10.0.1.%d:9866", i)) {
			t.Fatal("a heartbeat was not answered on a full disk")
		}
	}
	time.Sleep(500 * time.Millisecond) // a few failed saves
	if b, err := os.ReadFile(state); err != nil || !strings.Contains(string(b), "10.0.0.1:9866") {
		t.Fatalf("the state file on a full disk: %v, %.200s", err, b)
	} else if _, err := namenode.ParseState(b); err != nil {
		t.Fatalf("the state file was damaged on a full disk: %v", err)
	}

	os.Remove(filler)
	testenv.WaitFor(t, "the state file saved again", 10*time.Second, func() bool {
		b, err := os.ReadFile(state)
		return err == nil && strings.Contains(string(b), "10.0.1.4:9866")
	})
	for range 3 {
		if code, body := h.post(); code != http.StatusOK {
			t.Fatalf("hook event once there is room: %d %s", code, body)
		}
	}
	if got := running(t, addr); got != len(h.acked) {
		t.Errorf("the service runs %d statements; %d were acknowledged", got, len(h.acked))
	}
	_, logs := stop()
	for _, want := range []string{"no space left on device", "state saved again"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log does not say %q:\n%s", want, logs)
		}
	}
	if n := strings.Count(logs, "msg=\"save state\""); n != 1 {
		t.Errorf("the failed saves were logged %d times, want once", n)
	}

	// A restart on the same files: every acknowledged event, the state.
	addr, _ = startNamenode(t, args...)
	if got := running(t, addr); got != len(h.acked) {
		t.Errorf("after a restart the service runs %d statements; %d were acknowledged", got, len(h.acked))
	}
}
