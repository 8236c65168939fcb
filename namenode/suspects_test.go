package namenode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/suspect"
	"github.com/slowpeer/slowpeer/tracker"
)

// fakeAgents are DataNode agents in synthetic time that heartbeat to a
// service over HTTP: each probes one peer a second in shuffled rounds,
// heartbeats every 3 s with what it measured (recentLatencies), runs the
// probe requests of the reply at once and sends them in an early
// heartbeat half a second later. lat gives a block's latency in ms.
type fakeAgents struct {
	t       *testing.T
	url     string
	clock   *testenv.Clock
	start   time.Time
	nodes   []string
	lat     func(a, b string) float64
	rng     *rand.Rand
	order   map[string][]string
	blocks  map[string]map[reports.RecentLatency][]float64
	early   map[string]time.Time
	asked   int // probe requests received
	replies []reports.HeartbeatReply
}

func newFakeAgents(t *testing.T, url string, clock *testenv.Clock, n int) *fakeAgents {
	a := &fakeAgents{t: t, url: url, clock: clock, start: clock.Now(), rng: rand.New(rand.NewPCG(1, 2)),
		order: map[string][]string{}, blocks: map[string]map[reports.RecentLatency][]float64{},
		early: map[string]time.Time{}, lat: func(string, string) float64 { return 0.2 }}
	for i := range n {
		a.nodes = append(a.nodes, fmt.Sprintf("10.1.0.%d:9866", i+1))
	}
	return a
}

func (a *fakeAgents) record(from, to string, round int64) {
	if a.blocks[from] == nil {
		a.blocks[from] = map[reports.RecentLatency][]float64{}
	}
	k := reports.RecentLatency{Node: to, Round: round}
	x := a.lat(from, to) * (0.9 + 0.2*a.rng.Float64())
	a.blocks[from][k] = append(a.blocks[from][k], x)
}

func (a *fakeAgents) heartbeat(node string) {
	a.t.Helper()
	hb := reports.Heartbeat{Node: node}
	for k, xs := range a.blocks[node] {
		slices.Sort(xs)
		k.Blocks, k.LatencyMs = int64(len(xs)), xs[len(xs)/2]
		hb.RecentLatencies = append(hb.RecentLatencies, k)
	}
	delete(a.blocks, node)
	body, err := json.Marshal(hb)
	if err != nil {
		a.t.Fatal(err)
	}
	resp, err := http.Post(a.url+HeartbeatPath, "application/json", bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		a.t.Fatalf("heartbeat of %s: %d %s", node, resp.StatusCode, data)
	}
	reply, ignored, err := reports.ParseHeartbeatReply(data)
	if err != nil || len(ignored) > 0 {
		a.t.Fatalf("reply %s: %v %v", data, err, ignored)
	}
	a.replies = append(a.replies, reply)
	for _, p := range reply.Probe {
		a.asked++
		for range p.Blocks {
			a.record(node, p.Node, p.Round)
		}
	}
	if len(reply.Probe) > 0 {
		a.early[node] = a.clock.Now().Add(500 * time.Millisecond)
	}
}

// run advances the clock by d in steps of 500 ms, the agents doing their
// work and the service stepping the fast path at each.
func (a *fakeAgents) run(s *Server, d time.Duration) {
	a.t.Helper()
	end := a.clock.Now().Add(d)
	for a.clock.Now().Before(end) {
		a.clock.Advance(500 * time.Millisecond)
		now := a.clock.Now()
		tick := int(now.Sub(a.start) / (500 * time.Millisecond))
		for i, n := range a.nodes {
			if tick%2 == i%2 {
				if len(a.order[n]) == 0 {
					peers := slices.DeleteFunc(slices.Clone(a.nodes), func(p string) bool { return p == n })
					a.rng.Shuffle(len(peers), func(i, j int) { peers[i], peers[j] = peers[j], peers[i] })
					a.order[n] = peers
				}
				a.record(n, a.order[n][0], 0)
				a.order[n] = a.order[n][1:]
			}
			if due, ok := a.early[n]; ok && !now.Before(due) || tick%6 == i%6 {
				delete(a.early, n)
				a.heartbeat(n)
			}
		}
		s.StepSuspects(now)
	}
}

func getSuspects(t *testing.T, url string) []suspect.View {
	t.Helper()
	resp, err := http.Get(url + SuspectsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var vs []suspect.View
	if err := json.NewDecoder(resp.Body).Decode(&vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

// The fast path end to end, at the service's defaults (the slow set's
// hysteresis of 3 minutes included): six agents over real HTTP, one of
// them becomes a slow receiver; the service suspects it from the
// heartbeats' evidence, asks the others for probes in its replies,
// confirms it, and it enters the slow set within half a minute, logged
// as the fast path's; once it heals it leaves /v1/suspects (and stays
// in the slow set for slowpeer.slow.leave.after).
func TestFastPathEndToEnd(t *testing.T) {
	s, clock, logs := newTestServer(t, func(c *Config) { c.SlowSet = tracker.DefaultSlowSetConfig() })
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	a := newFakeAgents(t, srv.URL, clock, 6)
	a.run(s, 2*time.Minute)
	if vs := getSuspects(t, srv.URL); len(vs) != 0 || a.asked != 0 || s.slowSet.Len() != 0 {
		t.Fatalf("healthy cluster: suspects %+v, %d probes asked, slow set %v", vs, a.asked, s.slowSet.Nodes())
	}
	slow := a.nodes[2]
	a.lat = func(_, to string) float64 {
		if to == slow {
			return 2
		}
		return 0.2
	}
	fault := clock.Now()
	for !s.slowSet.Contains(slow) {
		if clock.Now().Sub(fault) > 30*time.Second {
			t.Fatalf("not in the slow set 30 s after the fault; suspects %+v; log:\n%s", getSuspects(t, srv.URL), logs)
		}
		a.run(s, 500*time.Millisecond)
	}
	t.Logf("in the slow set %v after the fault, %d probe requests", clock.Now().Sub(fault), a.asked)
	if got := s.SlowNodes(clock.Now()); !slices.Equal(got, []string{slow}) {
		t.Errorf("SlowNodes %v", got)
	}
	vs := getSuspects(t, srv.URL)
	if len(vs) == 0 || vs[0].Target != slow || vs[0].State != suspect.Confirmed || vs[0].Kind != suspect.Inbound ||
		vs[0].Rounds != suspect.DefaultRounds || len(vs[0].Probes) == 0 {
		t.Fatalf("suspects %+v, want %s confirmed inbound in %d rounds", vs, slow, suspect.DefaultRounds)
	}
	nodes, _ := s.SlowSets(clock.Now())
	if len(nodes) != 1 || nodes[0].Kind != string(suspect.Inbound) || nodes[0].Pairs < 2 {
		t.Errorf("slow set %+v, want %s inbound with the evidence's reporters as its pairs", nodes, slow)
	}
	line := ""
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "slow set entered") {
			line = l
		}
	}
	if !strings.Contains(line, "fast path") || !strings.Contains(line, "kind=inbound") || !strings.Contains(line, slow) {
		t.Errorf("entry line %q, want the fast path's, of kind inbound", line)
	}
	text, got := scrape(t, s)
	if got[`slowpeer_suspicion_verdicts_total{verdict="confirmed"}`] != 1 || got["slowpeer_suspects"] < 1 ||
		got["slowpeer_suspicions_opened_total"] < 1 || got["slowpeer_suspicion_verdict_seconds_count"] < 1 {
		t.Errorf("metrics:\n%s", text)
	}
	if promtool, err := exec.LookPath("promtool"); err == nil {
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = strings.NewReader(text)
		if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) != 0 {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}

	// Healed: it leaves the suspects, and stays in the slow set.
	a.lat = func(string, string) float64 { return 0.2 }
	a.run(s, 4*time.Minute)
	if vs := getSuspects(t, srv.URL); len(vs) != 0 {
		t.Errorf("healed: suspects %+v", vs)
	}
	if !s.slowSet.Contains(slow) {
		t.Errorf("healed: left the slow set before slowpeer.slow.leave.after")
	}
}

// With slowpeer.suspect.enabled false, or on a standby replica, the
// service asks no probes and has no suspects.
func TestFastPathOff(t *testing.T) {
	for _, edit := range []func(*Config){
		func(c *Config) { c.SuspectEnabled = false },
		func(c *Config) { c.State = func() string { return "standby" } },
	} {
		fastPathOff(t, edit)
	}
}

func fastPathOff(t *testing.T, edit func(*Config)) {
	s, clock, _ := newTestServer(t, edit)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	a := newFakeAgents(t, srv.URL, clock, 6)
	a.lat = func(_, to string) float64 {
		if to == a.nodes[1] {
			return 5
		}
		return 0.2
	}
	a.run(s, time.Minute)
	if vs := getSuspects(t, srv.URL); len(vs) != 0 || a.asked != 0 || s.slowSet.Len() != 0 {
		t.Fatalf("off: suspects %+v, %d probes asked, slow set %v", vs, a.asked, s.slowSet.Nodes())
	}
}

// A DataNode in dfs.hosts.exclude is never a suspect, however slow.
func TestFastPathExcluded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dfs.exclude")
	s, clock, _ := newTestServer(t, func(c *Config) { c.HostsExcludeFile = path })
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	a := newFakeAgents(t, srv.URL, clock, 6)
	slow := a.nodes[4]
	if err := os.WriteFile(path, []byte(slow+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RefreshNodes(t.Context()); err != nil {
		t.Fatal(err)
	}
	a.lat = func(_, to string) float64 {
		if to == slow {
			return 5
		}
		return 0.2
	}
	a.run(s, time.Minute)
	if vs := getSuspects(t, srv.URL); len(vs) != 0 || s.slowSet.Len() != 0 {
		t.Fatalf("excluded: suspects %+v, slow set %v", vs, s.slowSet.Nodes())
	}
}

// The heartbeat handler with a fast path's evidence (three recent
// latencies: three seconds of an agent's blocks) beside one without it,
// the fast path on and off, in the same run.
func BenchmarkHeartbeatRecent(b *testing.B) {
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("fastpath=%v", on), func(b *testing.B) {
			s, _, _ := newTestServer(b, func(c *Config) { c.SuspectEnabled = on })
			h := s.Handler()
			bodies := make([][]byte, 1000)
			name := func(i int) string { return fmt.Sprintf("10.1.%d.%d:9866", i/250, 1+i%250) }
			for i := range bodies {
				hb := reports.Heartbeat{Node: name(i)}
				for j := 1; j <= 3; j++ {
					hb.RecentLatencies = append(hb.RecentLatencies,
						reports.RecentLatency{Node: name((i + j) % len(bodies)), LatencyMs: 0.21 + float64(j)/100, Blocks: 1})
				}
				body, err := json.Marshal(hb)
				if err != nil {
					b.Fatal(err)
				}
				bodies[i] = body
			}
			benchHeartbeats(b, h, bodies)
		})
	}
}

// The service says what the number of live DataNodes lets the fast path
// tell, when that changes; a heartbeat with malformed evidence gets 400
// and changes nothing.
func TestFastPathClusterSizeAndBadEvidence(t *testing.T) {
	s, clock, logs := newTestServer(t, nil)
	for i := range 3 {
		mustHeartbeat(t, s, reports.Heartbeat{Node: fmt.Sprintf("10.2.0.%d:9866", i+1)})
	}
	s.StepSuspects(clock.Now())
	if !strings.Contains(logs.String(), "fast path: 3 live DataNodes: it confirms a slow receiver only") {
		t.Fatalf("log:\n%s", logs)
	}
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.2.0.4:9866"})
	clock.Advance(time.Minute)
	s.StepSuspects(clock.Now())
	if !strings.Contains(logs.String(), "fast path: every kind can be confirmed") {
		t.Fatalf("log:\n%s", logs)
	}
	w := do(t, s, "POST", HeartbeatPath, `{"node":"10.2.0.9:9866","recentLatencies":[{"node":"10.2.0.1:9866","latencyMs":-1,"blocks":1}]}`)
	if w.Code != http.StatusBadRequest {
		t.Fatalf("malformed evidence: %d %s", w.Code, w.Body)
	}
	if _, ok := s.nodes.State(clock.Now(), "10.2.0.9:9866"); ok || s.fast.det.Opened() != 0 {
		t.Fatal("a refused heartbeat changed something")
	}
}
