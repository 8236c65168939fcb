package datanode

import (
	"bytes"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/jmx"
)

// XceiverCount counts the connections the data port serves: one while a
// peer holds a connection open, none once it closed it.
//
// Reference: DataNode.getXceiverCount (the DataXceiver threads at work).
func TestXceiverCount(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	svc := newFakeService(t, false)
	cfg := DefaultConfig()
	cfg.ID, cfg.NameNodes, cfg.DataListener = ln.Addr().String(), []string{svc.srv.URL}, ln
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer startAgent(t, a)()
	xceivers := func() any {
		info, _ := jmx.Find(a.beans(time.Now()), jmx.DataNodeInfoBean)
		v, _ := info.Attr("XceiverCount")
		return v
	}
	// Polled: the data port takes the connection on a goroutine of its own.
	poll := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); xceivers() != want; {
			if time.Now().After(deadline) {
				t.Fatalf("XceiverCount = %v, want %d", xceivers(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	poll(0)
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	poll(1)
	conn.Close()
	poll(0)
}

// The agent's /metrics passes promtool's linter: every family has its
// # HELP and # TYPE lines, counters end in _total, names are well formed.
func TestPromtoolCheckAgentMetrics(t *testing.T) {
	promtool := testenv.Command(t, "promtool")
	cfg := DefaultConfig()
	cfg.ID, cfg.NameNodes = "10.0.0.2:9866", []string{"http://nn:9871"}
	a := embeddedAgent(t, cfg, time.Now(), map[string]float64{"10.0.0.3:9866": 2, "dn\"4\\:9866": 25})
	code, text := get(t, a.Handler(), "/metrics")
	if code != 200 || !strings.Contains(text, "# TYPE slowpeer_datanode_peer_latency_seconds gauge\n") ||
		!strings.Contains(text, "\nslowpeer_datanode_probe_requests_ignored_total 0\n") ||
		!strings.Contains(text, "\nslowpeer_datanode_probe_requested_blocks_total 0\n") ||
		!strings.Contains(text, "\nslowpeer_datanode_recent_blocks_dropped_total 0\n") {
		t.Fatalf("GET /metrics: %d\n%s", code, text)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Fatalf("promtool check metrics: %v\n%s\nscrape:\n%s", err, out, text)
	}
	// The check sees a family without its metadata.
	cmd = exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader("slowpeer_datanode_things_total 1\n")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("promtool check metrics passed a family without # HELP: %s", out)
	}
}
