package datanode

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/reports"
)

// fakeService is a NameNode-side service that keeps every heartbeat and
// signals each one on notify. With hang set it never answers: each request
// waits until the client gives up.
type fakeService struct {
	srv    *httptest.Server
	hang   bool
	notify chan struct{}

	mu    sync.Mutex
	beats []reports.Heartbeat
	// answer, when set, gives the reply to a heartbeat instead of
	// {"slow":false}.
	answer func(reports.Heartbeat) string
}

func newFakeService(t *testing.T, hang bool) *fakeService {
	t.Helper()
	s := &fakeService{hang: hang, notify: make(chan struct{}, 1)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var hb reports.Heartbeat
		if r.URL.Path != "/v1/heartbeat" || json.NewDecoder(r.Body).Decode(&hb) != nil || hb.Validate() != nil {
			http.Error(w, `{"error":"bad heartbeat"}`, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.beats = append(s.beats, hb)
		answer := s.answer
		s.mu.Unlock()
		select {
		case s.notify <- struct{}{}:
		default:
		}
		if s.hang {
			<-r.Context().Done()
			return
		}
		reply := `{"slow":false}`
		if answer != nil {
			reply = answer(hb)
		}
		w.Write([]byte(reply))
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *fakeService) Beats() []reports.Heartbeat {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]reports.Heartbeat(nil), s.beats...)
}

// waitFor waits until cond holds, checking each time one of the services
// is notified, and fails the test after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool, services ...*fakeService) {
	t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	agg := make(chan struct{}, 1)
	stop := make(chan struct{})
	defer close(stop)
	for _, s := range services {
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-s.notify:
					select {
					case agg <- struct{}{}:
					default:
					}
				}
			}
		}()
	}
	for !cond() {
		select {
		case <-agg:
		case <-deadline.C:
			t.Fatalf("after %v: %s did not happen", limit, what)
		}
	}
}

// startAgent runs a for the test (testenv.Start); the returned func stops
// it and waits.
func startAgent(t *testing.T, a *Agent) func() {
	t.Helper()
	return testenv.Start(t, a.Run)
}

// Over real HTTP: one service hangs, one refuses connections, one answers;
// the one that answers gets its heartbeats all the same, and the one that
// hangs is retried, each attempt cut after a heartbeat interval.
func TestAgentDeadServicesDoNotBlockLive(t *testing.T) {
	live, hung := newFakeService(t, false), newFakeService(t, true)
	refused := httptest.NewServer(http.NotFoundHandler())
	refused.Close()
	cfg := DefaultConfig()
	cfg.ID = "127.0.0.1:9866"
	cfg.NameNodes = []string{hung.srv.URL, refused.URL, live.srv.URL}
	cfg.HeartbeatInterval, cfg.MaxRetryBackoff = 100*time.Millisecond, 200*time.Millisecond
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stop := startAgent(t, a)
	// Six received, so that at least five were acknowledged before stop.
	waitFor(t, 20*time.Second, "6 heartbeats to the live service and 2 attempts on the hung one", func() bool {
		return len(live.Beats()) >= 6 && len(hung.Beats()) >= 2
	}, live, hung)
	stop()
	st := a.Services()
	if st[0].Failures == 0 || !strings.Contains(st[0].LastError, "deadline exceeded") {
		t.Fatalf("hung service status %+v, want failures with a deadline exceeded", st[0])
	}
	if st[1].Failures == 0 || st[1].Heartbeats != 0 {
		t.Fatalf("refusing service status %+v, want failures", st[1])
	}
	// Without peers the test is skipped: no report yet, it waits for data
	// (Scheduler.Reported).
	if st[2].Heartbeats < 5 || st[2].Reports != 0 || st[2].LastError != "" {
		t.Fatalf("live service status %+v, want ≥ 5 heartbeats and no report without data", st[2])
	}
	for i, hb := range live.Beats() {
		if hb.HasReport() {
			t.Fatalf("heartbeat %d carries a report, though no peer has data", i)
		}
	}
}

// Six agents probe each other on loopback; one waits 20 ms before it
// acknowledges a packet. Its peers find it and report it, and nobody else.
func TestAgentsFindSlowNode(t *testing.T) {
	const n, slow = 6, 2
	svc := newFakeService(t, false)
	lns, ids := loopbackListeners(t, n)
	var agents []*Agent
	for i := range n {
		a, err := New(clusterConfig(i, slow, ids, lns, svc.srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
		startAgent(t, a)
	}
	// latest returns each reporter's latest report.
	latest := func() map[string][]reports.SlowPeer {
		out := map[string][]reports.SlowPeer{}
		for _, hb := range svc.Beats() {
			if hb.HasReport() {
				out[hb.Node] = hb.SlowPeers
			}
		}
		return out
	}
	reporters := func(node string) int {
		k := 0
		for _, peers := range latest() {
			for _, p := range peers {
				if p.Node == node {
					k++
				}
			}
		}
		return k
	}
	waitFor(t, 60*time.Second, "3 agents reporting "+ids[slow], func() bool { return reporters(ids[slow]) >= 3 }, svc)
	for i, id := range ids {
		if i != slow && reporters(id) >= 2 {
			t.Fatalf("fast node %s reported by %d agents: %v", id, reporters(id), latest())
		}
	}
	for from, peers := range latest() {
		for _, p := range peers {
			if p.Node == ids[slow] && (p.LatencyMs < 20 || p.LatencyMs <= p.UpperLimitMs) {
				t.Fatalf("%s reported %+v: the latency must include the 20 ms and exceed the limit", from, p)
			}
		}
	}
	for _, a := range agents {
		if s := a.Stats(); s.ProbeBlocks == 0 || s.CorruptPackets != 0 {
			t.Fatalf("agent %s: %+v", a.ID(), s)
		}
	}
}

// Beside a Hadoop DataNode the report comes from its /jmx.
func TestAgentHadoopJMX(t *testing.T) {
	svc := newFakeService(t, false)
	j := newJMXServer(t, "dn-slow-peer.json")
	cfg := DefaultConfig()
	cfg.ID, cfg.NameNodes = "10.0.0.2:9866", []string{svc.srv.URL}
	cfg.HadoopJMX, cfg.HadoopJMXPeerPort, cfg.HTTPClient = j.url(), 9866, j.srv.Client()
	cfg.HeartbeatInterval = 100 * time.Millisecond
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stop := startAgent(t, a)
	var report []reports.SlowPeer
	waitFor(t, 20*time.Second, "a heartbeat with a report", func() bool {
		for _, hb := range svc.Beats() {
			if hb.HasReport() {
				report = hb.SlowPeers
				return true
			}
		}
		return false
	}, svc)
	stop()
	if len(report) != 1 || report[0].Node != "10.0.0.9:9866" || report[0].LatencyMs != 41.5 {
		t.Fatalf("report %+v, want 10.0.0.9:9866 at 41.5 ms", report)
	}
	if s := a.Stats(); s.JMXScrapes == 0 || s.JMXErrors != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestAgentDataPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := DefaultConfig()
	cfg.ID, cfg.NameNodes, cfg.DataListen = ln.Addr().String(), []string{"http://127.0.0.1:1"}, ln.Addr().String()
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "open the data port") {
		t.Fatalf("Run = %v, want an error opening the data port", err)
	}
}

// loopbackListeners opens n listeners on 127.0.0.1 for n agents' data
// ports and returns them with their addresses, the agents' ids.
func loopbackListeners(t testing.TB, n int) ([]net.Listener, []string) {
	t.Helper()
	lns := make([]net.Listener, n)
	ids := make([]string, n)
	for i := range lns {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[i], ids[i] = ln, ln.Addr().String()
	}
	return lns, ids
}

// clusterConfig is the configuration of agent i of a small fast cluster on
// the loopback listeners lns (ids their addresses), reporting to service;
// agent slow waits 20 ms before it acknowledges a packet.
func clusterConfig(i, slow int, ids []string, lns []net.Listener, service string) Config {
	cfg := DefaultConfig()
	cfg.ID, cfg.NameNodes, cfg.DataListener, cfg.Peers = ids[i], []string{service}, lns[i], ids
	cfg.HeartbeatInterval, cfg.ReportInterval = 100*time.Millisecond, 300*time.Millisecond
	cfg.MinOutlierDetectionSamples, cfg.MinOutlierDetectionNodes = 30, 4
	cfg.ProbeInterval, cfg.ProbePackets, cfg.ProbePacketBytes = 50*time.Millisecond, 4, 4096
	cfg.ProbeTimeout = 2 * time.Second
	if i == slow {
		cfg.FaultReceiveDelay = 20 * time.Millisecond
	}
	return cfg
}
