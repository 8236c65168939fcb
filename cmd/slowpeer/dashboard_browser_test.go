package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/reports"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "copy the browser test's screenshot of the dashboard to docs/dashboard.png")

// browserTimeout bounds the whole browser test; each wait has its own,
// shorter bound.
const (
	browserTimeout = 3 * time.Minute
	browserWait    = 30 * time.Second
)

// chromiumFlags are what Chromium needs on a machine without a network:
// without them it hangs trying to reach Google's services.
var chromiumFlags = []string{"headless", "no-sandbox", "disable-gpu", "disable-quic", "no-first-run",
	"disable-background-networking", "disable-component-update", "disable-sync"}

// TestDashboardInBrowser drives Debian's Chromium against a running
// "slowpeer namenode" with a slow node: the node shows in the slow set
// (with why, and links to its agent's /jmx and /metrics), in the table of
// raw reports and in the heatmap; a node excluded by dfs.hosts.exclude
// leaves the slow set and is shown excluded; a new slow node and a
// changed count arrive
// without a reload and leave the keyboard focus where it was; the page says when the service goes away and carries
// on when it is back on the same address; and the page writes no console
// error and throws no exception. It writes a screenshot to
// $SLOWPEER_ARTIFACTS (else a temporary directory), and with
// -update-screenshot to docs/dashboard.png.
func TestDashboardInBrowser(t *testing.T) {
	chromium := testenv.Command(t, "chromium")
	hive := "-hiveservers=10.0.0.5:10000,hs1.example.com:10000,hs2.example.com:10000"
	exclude := filepath.Join(t.TempDir(), "dfs.exclude")
	if err := os.WriteFile(exclude, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The slow set without its 3 minutes: a node enters at the next
	// diagnosis (2 s) that counts it.
	addr, stop := startNamenode(t, hive, "-D", "slowpeer.slow.enter.after=0", "-D", "dfs.hosts.exclude="+exclude)
	base := "http://" + addr
	for i := range 6 {
		postSlow(t, base, fmt.Sprintf("10.0.0.%d:9866", 10+i), 30+2.5*float64(i), "10.0.0.5:9866")
	}
	post(t, base+reports.HeartbeatPath, "application/json", `{"node":"10.0.0.5:9866","httpAddress":"10.0.0.5:9864"}`)
	postSlow(t, base, "10.0.0.7:9866", 0)
	postHook(t, base, "hs1.example.com:10000", "q1")

	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	var output syncBuffer
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(chromium), chromedp.UserDataDir(t.TempDir()),
		chromedp.CombinedOutput(&output), chromedp.WindowSize(1280, 900)}
	for _, f := range chromiumFlags {
		opts = append(opts, chromedp.Flag(f, true))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	defer func() {
		if t.Failed() {
			t.Logf("chromium's output:\n%s", output.String())
		}
	}()

	// Every console message, with whether the service was down then: a
	// failed reconnect is logged by the browser, and is expected.
	var down atomic.Bool
	var mu sync.Mutex
	var bad []string
	if err := chromedp.Do(bctx); err != nil { // starts the browser
		t.Fatalf("start %s: %v", chromium, err)
	}
	messages := chromedp.Console(bctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type != chromedp.ConsoleError && !m.IsException() {
				continue
			}
			if m.Source == "network" && down.Load() {
				continue
			}
			mu.Lock()
			bad = append(bad, fmt.Sprintf("%s:%d %s", m.URL, m.Line+1, m))
			mu.Unlock()
		}
	}()

	if err := chromedp.Do(bctx, chromedp.Navigate(base+"/")); err != nil {
		t.Fatalf("open %s/: %v", base, err)
	}
	if got := eval[string](t, bctx, `location.pathname`); got != dashboard.Path {
		t.Fatalf("/ led to %q, want %s", got, dashboard.Path)
	}
	waitFor(t, bctx, "the page to go live", `document.getElementById("status").textContent.startsWith("Live")`)
	// The slow set, what the service decided, with why and links to the
	// agent; the raw reports apart.
	waitFor(t, bctx, "the slow set", `(() => {
		const rows = [...document.querySelectorAll("#slowset tbody tr")];
		return rows.length === 1 && rows[0].cells[0].textContent === "10.0.0.5:9866" &&
			rows[0].cells[1].textContent.startsWith("reports of agents") && rows[0].cells[2].textContent === "6" &&
			rows[0].querySelector('a[href="http://10.0.0.5:9864/jmx"]') !== null &&
			document.querySelector('#datanodes a[href="http://10.0.0.5:9864/metrics"]') !== null;
	})()`)
	rows := eval[[]string](t, bctx, `[...document.querySelectorAll("#slow tbody tr")].map(r => r.cells[0].textContent + " " + r.cells[1].textContent)`)
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "10.0.0.5:9866 6: 10.0.0.10:9866, ") {
		t.Fatalf("slow-node table rows %q", rows)
	}
	peers := eval[[]string](t, bctx, `[...document.querySelectorAll("#heatmap-table thead th[scope=col]")].slice(1).map(e => e.textContent)`)
	slowCells := eval[int](t, bctx, `[...document.querySelectorAll("#heatmap-table td")].filter(td => td.textContent.includes("(slow)")).length`)
	if strings.Join(peers, " ") != "10.0.0.5:9866" || slowCells != 6 {
		t.Fatalf("heatmap columns %q with %d slow cells, want the slow node with 6", peers, slowCells)
	}
	eval[bool](t, bctx, `window.notReloaded = true`)
	// A keyboard user scrolls the heatmap from its region, which updates
	// must leave focused.
	if !eval[bool](t, bctx, `document.querySelector("#heatmap .scroll").focus(), document.activeElement.matches("#heatmap .scroll")`) {
		t.Fatal("the heatmap's scrolling region takes no focus")
	}

	// Live: a seventh reporter, and a new slow node.
	postSlow(t, base, "10.0.0.16:9866", 40, "10.0.0.5:9866", "10.0.0.7:9866")
	for i := range 2 {
		postSlow(t, base, fmt.Sprintf("10.0.0.%d:9866", 20+i), 25, "10.0.0.7:9866")
	}
	waitFor(t, bctx, "the new slow node and the new count", `(() => {
		const rows = [...document.querySelectorAll("#slow tbody tr")];
		return rows.some(r => r.cells[0].textContent === "10.0.0.7:9866" && r.cells[1].textContent.startsWith("3: ")) &&
			rows.some(r => r.cells[0].textContent === "10.0.0.5:9866" && r.cells[1].textContent.startsWith("7: ")) &&
			[...document.querySelectorAll("#heatmap-table thead th")].some(e => e.textContent === "10.0.0.7:9866");
	})()`)
	waitFor(t, bctx, "the new slow node in the slow set", `document.getElementById("summary").textContent.startsWith("2 nodes in the slow set;")`)
	if summary := eval[string](t, bctx, `document.getElementById("summary").textContent`); !strings.Contains(summary, "; 2 nodes reported slow by peers;") {
		t.Fatalf("summary %q", summary)
	}
	if !eval[bool](t, bctx, `document.activeElement.matches("#heatmap .scroll")`) {
		t.Fatal("the update took the focus from the heatmap")
	}
	// Excluded: out of the slow set at once, said so among the DataNodes.
	if err := os.WriteFile(exclude, []byte("10.0.0.7:9866\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCmd(t, "", "admin", "-namenode", base, "-refresh-nodes"); code != 0 {
		t.Fatalf("admin -refresh-nodes: %d %s %s", code, out, errOut)
	}
	waitFor(t, bctx, "the excluded node out of the slow set", `(() => {
		const set = [...document.querySelectorAll("#slowset tbody tr")].map(r => r.cells[0].textContent);
		const ex = [...document.querySelectorAll("#datanodes tr.excluded")].map(r => r.cells[0].textContent + " " + r.cells[1].textContent);
		return set.join() === "10.0.0.5:9866" && ex.join() === "10.0.0.7:9866 excluded (dfs.hosts.exclude)";
	})()`)

	// Slow disks, live: twelve nodes measure their volumes, one of them
	// ten times slower than the rest; the fleet view finds it, and the
	// per-node disk heatmap marks its cell.
	for i := range 12 {
		postDisks(t, base, fmt.Sprintf("10.0.2.%d:9866", i+1), i == 3)
	}
	waitFor(t, bctx, "the slow disk", `(() => {
		const rows = [...document.querySelectorAll("#disks tbody tr")].map(r => r.cells[0].textContent);
		return rows.length > 0 && rows[0] === "10.0.2.4:9866:/data/1";
	})()`)
	slowDiskCells := eval[[]string](t, bctx, `[...document.querySelectorAll("#disks .heat tbody tr")].filter(r => r.textContent.includes("(slow)")).map(r => r.cells[0].textContent)`)
	if strings.Join(slowDiskCells, " ") != "10.0.2.4:9866" {
		t.Fatalf("disk heatmap rows with a slow cell: %q", slowDiskCells)
	}
	// The fast path, live: five agents send their recent latencies, one
	// of them ten times slower to reach; it shows as a suspect.
	postRecent(t, base, 5, "10.0.3.3:9866")
	waitFor(t, bctx, "the fast path's suspect", `(() => {
		const rows = [...document.querySelectorAll("#suspects tbody tr")];
		return rows.length === 1 && rows[0].cells[0].textContent === "10.0.3.3:9866" &&
			rows[0].cells[2].textContent === "inbound" && rows[0].cells[3].textContent.startsWith("4 reporters far above");
	})()`)
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	saveScreenshot(t, shot)

	// The service goes away, and comes back on the same address with
	// other slow nodes: the same page follows.
	down.Store(true)
	if code, logs := stop(); code != 0 {
		t.Fatalf("slowpeer namenode exited %d:\n%s", code, logs)
	}
	waitFor(t, bctx, "the page to say the service is gone", `document.getElementById("status").textContent.startsWith("Connection to the service lost")`)
	addr2, _ := startNamenode(t, hive, "-listen", addr)
	if addr2 != addr {
		t.Fatalf("restarted on %s, not %s", addr2, addr)
	}
	for i := range 3 {
		postSlow(t, base, fmt.Sprintf("10.0.0.%d:9866", 30+i), 50, "10.0.0.8:9866")
	}
	waitFor(t, bctx, "the restarted service's slow node", `(() => {
		const rows = [...document.querySelectorAll("#slow tbody tr")].map(r => r.cells[0].textContent);
		return rows.length === 1 && rows[0] === "10.0.0.8:9866" && document.getElementById("status").textContent.startsWith("Live");
	})()`)
	down.Store(false)
	if !eval[bool](t, bctx, `window.notReloaded === true`) {
		t.Fatal("the page was reloaded")
	}
	// What the browser logs arrives asynchronously: a last round trip.
	eval[bool](t, bctx, `true`)
	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Fatalf("console errors or exceptions:\n%s", strings.Join(bad, "\n"))
	}
}

// postRecent sends a heartbeat of each of n agents 10.0.3.1.., then one
// of each with a block's latency to each of the others (the fast path
// keeps those of DataNodes it knows), slow ten times slower to reach.
func postRecent(t *testing.T, base string, n int, slow string) {
	t.Helper()
	for i := range n {
		post(t, base+reports.HeartbeatPath, "application/json", fmt.Sprintf(`{"node":"10.0.3.%d:9866"}`, i+1))
	}
	for i := range n {
		hb := reports.Heartbeat{Node: fmt.Sprintf("10.0.3.%d:9866", i+1)}
		for j := range n {
			peer := fmt.Sprintf("10.0.3.%d:9866", j+1)
			if j == i {
				continue
			}
			ms := 0.5
			if peer == slow {
				ms = 5
			}
			hb.RecentLatencies = append(hb.RecentLatencies, reports.RecentLatency{Node: peer, LatencyMs: ms, Blocks: 1})
		}
		body, err := json.Marshal(hb)
		if err != nil {
			t.Fatal(err)
		}
		post(t, base+reports.HeartbeatPath, "application/json", string(body))
	}
}

// eval evaluates expr in the page and returns its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor waits until expr is true in the page, at most browserWait.
func waitFor(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		html, _ := chromedp.Run(context.WithoutCancel(ctx), chromedp.Evaluate[string](`document.getElementById("sections").innerText`))
		t.Fatalf("waiting for %s: %v; the page shows:\n%s", what, err, html)
	}
}

// saveScreenshot writes png as an artifact of the test, and to
// docs/dashboard.png with -update-screenshot.
func saveScreenshot(t *testing.T, png []byte) {
	t.Helper()
	dir := os.Getenv("SLOWPEER_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "dashboard.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
	if *updateScreenshot {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "dashboard.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// postSlow posts a heartbeat from reporter naming peers slow at latencyMs
// (its other peers at about 2 ms).
func postSlow(t *testing.T, base, reporter string, latencyMs float64, peers ...string) {
	t.Helper()
	hb := reports.Heartbeat{Node: reporter, SlowPeers: []reports.SlowPeer{}}
	for _, p := range peers {
		hb.SlowPeers = append(hb.SlowPeers, reports.SlowPeer{Node: p, LatencyMs: latencyMs, MedianMs: 2.1, MADMs: 0.4, UpperLimitMs: 6.3})
	}
	body, _ := json.Marshal(hb)
	post(t, base+reports.HeartbeatPath, "application/json", string(body))
}

// postDisks posts what node measured of its three volumes: 6 ms each, and
// 60 ms on /data/1 when slow.
func postDisks(t *testing.T, base, node string, slow bool) {
	t.Helper()
	hb := reports.Heartbeat{Node: node}
	for v := range 3 {
		ms := 6.0 + float64(v)/4
		if slow && v == 1 {
			ms = 60
		}
		hb.DiskLatencies = append(hb.DiskLatencies, reports.DiskLatency{Disk: fmt.Sprintf("/data/%d", v), Kind: "hdd",
			Latencies: map[string]float64{"READ": ms, "WRITE": ms}, Samples: map[string]int64{"READ": 600, "WRITE": 400}})
	}
	body, _ := json.Marshal(hb)
	post(t, base+reports.HeartbeatPath, "application/json", string(body))
}

// postHook posts the start of a statement on server.
func postHook(t *testing.T, base, server, queryID string) {
	t.Helper()
	post(t, base+"/rest/hiveserver/send", "application/x-www-form-urlencoded",
		hookEvent(server, "PRE_EXEC_HOOK", queryID, time.Now().UnixMilli()))
}

func post(t *testing.T, url, contentType, body string) {
	t.Helper()
	resp, err := http.Post(url, contentType, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: %s", url, resp.Status)
	}
}
