package dashboard

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

var t0 = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

// slowView is a View with one slow node and nothing optional.
func slowView() View {
	return View{
		SlowNodes: []SlowNode{{Node: "10.0.0.5:9866", Reporters: []reports.Reporter{
			{Node: "10.0.0.2:9866", LatencyMs: 35.2, MedianMs: 2.1},
			{Node: "10.0.0.3:9866", LatencyMs: 41, MedianMs: 1.9},
		}}},
		DataNodes: []DataNode{
			{Node: "10.0.0.2:9866", State: Live, LastHeartbeat: t0.Add(-time.Second)},
			{Node: "10.0.0.3:9866", State: Stale, LastHeartbeat: t0.Add(-40 * time.Second)},
			{Node: "10.0.0.9:9866", State: Dead, LastHeartbeat: t0.Add(-time.Hour)},
		},
	}
}

func get(t *testing.T, h http.Handler, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

func contains(t *testing.T, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Fatalf("page lacks %q:\n%s", w, body)
		}
	}
}

// checkAccessible checks what a screen reader needs of the tables: each
// has a caption, each header cell a scope.
func checkAccessible(t *testing.T, body string) {
	t.Helper()
	tables := strings.Count(body, "<table")
	if captions := len(regexp.MustCompile(`<table[^>]*>\s*<caption>`).FindAllString(body, -1)); captions != tables {
		t.Fatalf("%d tables, %d open with a caption:\n%s", tables, captions, body)
	}
	if n := len(regexp.MustCompile(`<th(?: [^>]*)?>`).FindAllString(body, -1)); n != strings.Count(body, `<th scope="`) {
		t.Fatalf("a <th> without scope:\n%s", body)
	}
}

func TestDashboardPageWithoutOptionalParts(t *testing.T) {
	d := New(SourceFunc(func(time.Time) View { return slowView() }), Config{Now: func() time.Time { return t0 }})
	rec := get(t, d, "GET", "/ui/")
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /ui/: %d %v", rec.Code, rec.Header())
	}
	body := rec.Body.String()
	checkAccessible(t, body)
	contains(t, body,
		`<h1>slowpeer</h1>`, `<script src="app.js" defer></script>`, `<meta http-equiv="refresh"`,
		`1 node reported slow by peers;`, `3 DataNodes: 1 live, 1 stale, 1 dead.`,
		`Not available: this service keeps no slow set.`,
		// the slow node: its reporters, latency, median, ratio, since
		`<th scope="row">10.0.0.5:9866</th><td>2: 10.0.0.2:9866, 10.0.0.3:9866</td><td>38.1</td><td>2.00</td><td>19.1×</td>`,
		`<time datetime="2026-12-01T08:00:00Z">2026-12-01 08:00:00 UTC</time> (for 0s)`,
		`<td>not available</td>`,
		// the heatmap from the reports: two rows, one column, both slow
		`Drawn from the slow-peer reports`,
		`<th scope="row">10.0.0.2:9866</th><td class="h4">35.2 <span aria-hidden="true">▲</span><span class="vh">(slow)</span></td>`,
		// the DataNodes, dead and stale first, with words for states
		`<tr class="dead"><th scope="row">10.0.0.9:9866</th><td>dead</td><td><time datetime="2026-12-01T07:00:00Z">2026-12-01 07:00:00 UTC</time> (1h0m0s ago)</td><td>no HTTP port</td></tr>`,
		`Not available: this service does not diagnose slow nodes.`,
		`Not available: this service has no HiveServer picker.`,
		`Not available: this service is not registered in ZooKeeper or etcd.`,
		`Not available: this service takes no disk statistics.`,
		`Not available: the fast path is off (slowpeer.suspect.enabled).`)
	if strings.Index(body, `10.0.0.9:9866</th>`) > strings.Index(body, `<tr class="live"><th scope="row">10.0.0.2:9866`) {
		t.Fatal("the dead DataNode is not listed first")
	}
}

func TestDashboardPageWithEveryPart(t *testing.T) {
	v := slowView()
	v.Diagnosis = &Diagnosis{Findings: []Finding{
		{Node: "10.0.0.5:9866", Kind: KindLink, Peer: "10.0.0.2:9866", Reporters: 1, LatencyMs: 35.2, MedianMs: 2.1},
	}}
	v.Matrix = &Matrix{Latencies: []Latency{
		{Reporter: "10.0.0.2:9866", Peer: "10.0.0.5:9866", LatencyMs: 35.2},
		{Reporter: "10.0.0.2:9866", Peer: "10.0.0.3:9866", LatencyMs: 2},
		{Reporter: "10.0.0.3:9866", Peer: "10.0.0.2:9866", LatencyMs: 2},
	}}
	v.HiveServers = &HiveServers{Pick: "hs1:10000", Servers: []HiveServer{
		{Server: "10.0.0.5:10000", Running: 3, LoadSeconds: 12.5, SlowHost: true},
		{Server: "hs1:10000", Running: 1, LoadSeconds: 0.5},
	}}
	v.Cluster = &Cluster{Self: "nn2:9871", Leader: "nn1:9871", Replicas: []string{"nn1:9871", "nn2:9871"}, Registry: "zk"}
	v.SlowSet = &SlowSet{}
	v.Disks = &Disks{
		Slow: []SlowDisk{{Node: "10.0.0.4:9866", Disk: "/data/3", Kind: "hdd", Evidence: "service", ValueMs: 60, MedianMs: 6, InSlowSet: true}},
		Volumes: []Volume{
			{Node: "10.0.0.4:9866", Disk: "/data/3", Kind: "hdd", LatencyMs: 180},
			{Node: "10.0.0.4:9866", Disk: "/data/10", Kind: "hdd", LatencyMs: 6},
			{Node: "10.0.0.2:9866", Disk: "/data/3", Kind: "hdd", LatencyMs: 6},
		},
	}
	v.Suspects = &Suspects{Suspects: []Suspect{
		{Node: "10.0.0.6:9866", Kind: KindInbound, State: "confirmed", Rule: KindInbound, Reporters: 3,
			LatencyMs: 12, ExpectedMs: 1.2, Rounds: 2, Probes: 24, Answered: 22, Since: t0.Add(-15 * time.Second)},
		{Node: "10.0.0.7:9866", Peer: "10.0.0.8:9866", Kind: KindLink, State: "suspected", Rule: KindLink, Reporters: 1,
			LatencyMs: 9, ExpectedMs: 1.2, Since: t0},
	}}
	d := New(SourceFunc(func(time.Time) View { return v }), Config{Now: func() time.Time { return t0 }})
	body := get(t, d, "GET", "/ui/").Body.String()
	checkAccessible(t, body)
	contains(t, body,
		`<tr class="confirmed"><th scope="row">10.0.0.6:9866</th><td>confirmed</td><td>inbound</td><td>3 reporters far above: 12.0 ms, 1.20 expected</td><td>2</td><td>22 of 24</td><td><time datetime="2026-12-01T07:59:45Z">2026-12-01 07:59:45 UTC</time> (15s ago)</td></tr>`,
		`<tr class="suspected"><th scope="row">10.0.0.7:9866 → 10.0.0.8:9866</th><td>suspected</td><td>link</td><td>1 reporter far above:`,
		`HiveServer pick: hs1:10000.`,
		`<td>link to 10.0.0.2:9866</td></tr>`,
		`<th scope="row">10.0.0.5:9866</th><td>link</td><td>10.0.0.2:9866</td><td>1</td><td>35.2</td><td>2.10</td>`,
		`2.00 ms, the median of all cells`,
		`<td class="h4">35.2 <span aria-hidden="true">▲</span>`,
		`<td class="none"><span aria-hidden="true">·</span><span class="vh">not measured</span></td>`,
		`<tr class="slowhost"><th scope="row">10.0.0.5:10000</th><td>3</td><td>12.5</td><td>yes: no new work</td><td>no</td></tr>`,
		`<th scope="row">hs1:10000</th><td>1</td><td>0.5</td><td>no</td><td>yes</td></tr>`,
		`Replicas registered in zk; leader: nn1:9871`,
		`<th scope="row">nn2:9871</th><td>standby</td><td>yes</td></tr>`,
		`<tr><th scope="row">10.0.0.4:9866:/data/3</th><td>hdd</td><td>time per operation</td><td>60.0</td><td>6.00</td><td>10.0×</td><td>yes</td></tr>`,
		`<thead><tr><th scope="col">Node \ volume</th><th scope="col">/data/3</th><th scope="col">/data/10</th></tr></thead>`,
		`<tr><th scope="row">10.0.0.4:9866</th><td class="h5">180 <span aria-hidden="true">▲</span><span class="vh">(slow)</span></td><td class="h0">6.00</td></tr>`,
		`<tr><th scope="row">10.0.0.2:9866</th><td class="h0">6.00</td><td class="none"><span aria-hidden="true">·</span><span class="vh">no such volume</span></td></tr>`)
	if strings.Contains(body, "Drawn from the slow-peer reports") || strings.Contains(body, "Not available") {
		t.Fatalf("an available part is said unavailable:\n%s", body)
	}
}

func TestDashboardPageEmptyAndEscaped(t *testing.T) {
	v := View{DataNodes: []DataNode{{Node: `<script>alert(1)</script>`, State: Live, LastHeartbeat: t0, HTTPAddress: `x"><script>:1`}},
		HiveServers: &HiveServers{}, Diagnosis: &Diagnosis{}, SlowSet: &SlowSet{}, Disks: &Disks{}}
	d := New(SourceFunc(func(time.Time) View { return v }), Config{Now: func() time.Time { return t0 }})
	body := get(t, d, "GET", "/ui/").Body.String()
	checkAccessible(t, body)
	contains(t, body, `0 nodes in the slow set;`, `no node reported slow by peers;`, `Empty: no alert fires, no work is moved.`,
		`HiveServer pick: none eligible.`, `No node is reported slow.`,
		`No latencies to show.`, `Nothing to diagnose.`, `The picker knows no server yet.`,
		`No disk is slow.`, `No volume measured yet.`,
		`&lt;script&gt;alert(1)&lt;/script&gt;`)
	if strings.Contains(body, "<script>alert") {
		t.Fatal("a node id is not escaped")
	}
}

// The dashboard shows when it first saw a node slow, while the node stays
// slow; a Since the Source gives wins.
func TestDashboardSince(t *testing.T) {
	var slow []SlowNode
	d := New(SourceFunc(func(time.Time) View { return View{SlowNodes: slow} }), Config{})
	since := func(now time.Time) map[string]time.Time {
		out := map[string]time.Time{}
		for _, r := range d.page(now).Slow {
			out[r.Node] = r.Since
		}
		return out
	}
	given := t0.Add(-time.Hour)
	slow = []SlowNode{{Node: "a:1"}, {Node: "b:1", Since: given}}
	if s := since(t0); !s["a:1"].Equal(t0) || !s["b:1"].Equal(given) {
		t.Fatalf("at t0: %v", s)
	}
	if s := since(t0.Add(time.Minute)); !s["a:1"].Equal(t0) {
		t.Fatalf("a minute later: %v", s)
	}
	slow = nil
	since(t0.Add(2 * time.Minute))
	slow = []SlowNode{{Node: "a:1"}}
	if s := since(t0.Add(3 * time.Minute)); !s["a:1"].Equal(t0.Add(3 * time.Minute)) {
		t.Fatalf("slow again: %v", s)
	}
}

func TestDashboardMethodsAndPaths(t *testing.T) {
	d := New(SourceFunc(func(time.Time) View { return slowView() }), Config{})
	f := func(method, path string, code int, contentType string) *httptest.ResponseRecorder {
		t.Helper()
		rec := get(t, d, method, path)
		if rec.Code != code || !strings.HasPrefix(rec.Header().Get("Content-Type"), contentType) {
			t.Fatalf("%s %s: %d %q, want %d %q", method, path, rec.Code, rec.Header().Get("Content-Type"), code, contentType)
		}
		return rec
	}
	page := f("GET", "/ui/", 200, "text/html")
	head := f("HEAD", "/ui/", 200, "text/html")
	if head.Body.Len() != 0 || head.Header().Get("Content-Length") != strconv.Itoa(page.Body.Len()) {
		t.Fatalf("HEAD /ui/: body %d bytes, Content-Length %q", head.Body.Len(), head.Header().Get("Content-Length"))
	}
	if js := f("GET", "/ui/app.js", 200, "text/javascript"); !strings.Contains(js.Body.String(), `new EventSource("events")`) {
		t.Fatalf("app.js: %s", js.Body)
	}
	f("HEAD", "/ui/app.js", 200, "text/javascript")
	f("GET", "/ui/style.css", 200, "text/css")
	f("HEAD", "/ui/events", 200, "text/event-stream")
	if rec := f("GET", "/ui/page.html", 404, "application/json"); rec.Body.String() != `{"error":"no such path"}`+"\n" {
		t.Fatalf("404 body %q", rec.Body)
	}
	f("GET", "/ui/assets/app.js", 404, "application/json")
	if rec := f("POST", "/ui/", 405, "application/json"); rec.Header().Get("Allow") != "GET, HEAD" {
		t.Fatalf("405 without Allow: %v", rec.Header())
	}
	if csp := page.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Fatalf("Content-Security-Policy %q", csp)
	}
}

func TestDashboardAssetsStayLocal(t *testing.T) {
	for _, name := range []string{"assets/page.html", "assets/sections.html", "assets/app.js", "assets/style.css"} {
		f, err := assets.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if m := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/`).Find(b); m != nil {
			t.Fatalf("%s loads from elsewhere: %s", name, m)
		}
	}
}

// TestDashboardBoundsDataNodeRows: a large cluster's page lists
// MaxDataNodeRows DataNodes, the dead ones first, and counts them all.
func TestDashboardBoundsDataNodeRows(t *testing.T) {
	v := View{}
	for i := range MaxDataNodeRows + 100 {
		v.DataNodes = append(v.DataNodes, DataNode{Node: fmt.Sprintf("10.0.%d.%d:9866", i/200, i%200), State: Live, LastHeartbeat: t0})
	}
	v.DataNodes = append(v.DataNodes, DataNode{Node: "10.9.9.9:9866", State: Dead, LastHeartbeat: t0.Add(-time.Hour)})
	d := New(SourceFunc(func(time.Time) View { return v }), Config{Now: func() time.Time { return t0 }})
	body := get(t, d, "GET", "/ui/").Body.String()
	contains(t, body, fmt.Sprintf("%d DataNodes: %d live, 0 stale, 1 dead, 0 excluded; dead and stale first, excluded last; 101 more not listed",
		MaxDataNodeRows+101, MaxDataNodeRows+100))
	if rows := strings.Count(body, `<tr class="`); rows != MaxDataNodeRows {
		t.Fatalf("%d DataNode rows, want %d", rows, MaxDataNodeRows)
	}
	if first := strings.Index(body, `<tr class="`); !strings.HasPrefix(body[first:], `<tr class="dead"><th scope="row">10.9.9.9:9866`) {
		t.Fatalf("the first row is not the dead node: %.120s", body[first:])
	}
}

// TestDashboardSlowSet: the slow set, what the service decided, comes
// first and apart from the raw reports: each member with why, its pairs,
// since when, a history and links to its agent; excluded DataNodes are
// said so, last.
func TestDashboardSlowSet(t *testing.T) {
	v := slowView()
	var hist []HistoryPoint
	for i := range 90 {
		hist = append(hist, HistoryPoint{At: t0.Add(time.Duration(i-90) * time.Minute), Pairs: min(i, 11)})
	}
	v.SlowSet = &SlowSet{
		Nodes: []SlowSetMember{{Node: "10.0.0.5:9866", Kind: KindOutbound, Pairs: 11, LatencyMs: 50.3, MedianMs: 0.07,
			Since: t0.Add(-time.Hour), LastFound: t0, HTTPAddress: "10.0.0.5:9864", History: hist},
			{Node: "10.0.0.6:9866", Kind: KindReports, Pairs: 2, Since: t0.Add(-time.Minute), LastFound: t0}},
		Links: []SlowSetMember{{Node: "10.0.0.2:9866", Peer: "10.0.0.3:9866", Kind: KindLink, Pairs: 1, LatencyMs: 9, MedianMs: 0.1,
			Since: t0, LastFound: t0}},
	}
	v.DataNodes = append(v.DataNodes, DataNode{Node: "10.0.0.8:9866", State: Excluded, LastHeartbeat: t0, HTTPAddress: "10.0.0.8:9864"})
	d := New(SourceFunc(func(time.Time) View { return v }), Config{Now: func() time.Time { return t0 }})
	body := get(t, d, "GET", "/ui/").Body.String()
	checkAccessible(t, body)
	contains(t, body,
		`2 nodes in the slow set and 1 slow link;`, `4 DataNodes: 1 live, 1 stale, 1 dead, 1 excluded.`,
		`<tr><th scope="row">10.0.0.5:9866</th><td>outbound: a slow sender</td><td>11</td><td>50.3</td><td>0.07</td>`+
			`<td><time datetime="2026-12-01T07:00:00Z">2026-12-01 07:00:00 UTC</time> (for 1h0m0s)</td>`,
		`<span class="vh">over the last 1h30m0s: at most 11 pairs, 11 in the last minute</span>`,
		`<a href="http://10.0.0.5:9864/jmx">/jmx</a> <a href="http://10.0.0.5:9864/metrics">/metrics</a>`,
		`<td>reports of agents without measurements (Hadoop&#39;s rule)</td><td>2</td><td>-</td><td>-</td>`,
		`<td>link: slow between 10.0.0.2:9866 and 10.0.0.3:9866 only</td>`,
		`<tr class="excluded"><th scope="row">10.0.0.8:9866</th><td>excluded (dfs.hosts.exclude)</td>`,
	)
	if s, r := strings.Index(body, `id="slowset"`), strings.Index(body, `id="slow"`); s < 0 || s > r {
		t.Fatal("the slow set does not come before the raw reports")
	}
	if strings.LastIndex(body, `<tr class="`) != strings.Index(body, `<tr class="excluded">`) {
		t.Fatal("the excluded DataNode is not listed last")
	}
}

func TestSpark(t *testing.T) {
	f := func(pairs []int, want string) {
		t.Helper()
		var h []HistoryPoint
		for i, p := range pairs {
			h = append(h, HistoryPoint{At: t0.Add(time.Duration(i) * time.Minute), Pairs: p})
		}
		if got, _ := spark(h); got != want {
			t.Fatalf("spark(%v) = %q, want %q", pairs, got, want)
		}
	}
	f(nil, "")
	f([]int{0, 7, 14}, "▁▄█")
	f([]int{0, 0}, "▁▁")
	long := make([]int, 360)
	long[359] = 5
	if got, _ := spark(func() []HistoryPoint {
		var h []HistoryPoint
		for i, p := range long {
			h = append(h, HistoryPoint{At: t0.Add(time.Duration(i) * time.Minute), Pairs: p})
		}
		return h
	}()); len([]rune(got)) != sparkBuckets || !strings.HasSuffix(got, "█") {
		t.Fatalf("six hours: %q", got)
	}
}

// TestPageDrawnOnceAnInterval: however many load the page within an
// interval, the Source is read once and they all get the same page; the
// first load after the interval (or with a clock set back) reads it anew.
func TestPageDrawnOnceAnInterval(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	now, snapshots := t0, 0
	src := SourceFunc(func(time.Time) View {
		snapshots++
		return View{DataNodes: []DataNode{{Node: fmt.Sprintf("10.0.0.%d:9866", snapshots), State: Live, LastHeartbeat: t0}}}
	})
	d := New(src, Config{Interval: 2 * time.Second, Now: func() time.Time { return now }})
	load := func(at time.Duration, want int) {
		t.Helper()
		now = t0.Add(at)
		body := get(t, d, "GET", "/ui/").Body.String()
		if snapshots != want || !strings.Contains(body, fmt.Sprintf("10.0.0.%d:9866", want)) {
			t.Fatalf("at %v: %d snapshots, want %d (the page of the last)", at, snapshots, want)
		}
	}
	load(0, 1)
	load(0, 1)
	load(1999*time.Millisecond, 1)
	load(2*time.Second, 2)
	load(time.Second, 3) // the clock went back
	if rec := get(t, d, "HEAD", "/ui/"); snapshots != 3 || rec.Header().Get("Content-Length") == "" {
		t.Fatalf("HEAD: %d snapshots, Content-Length %q", snapshots, rec.Header().Get("Content-Length"))
	}
}
