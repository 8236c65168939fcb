package namenode

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// feed gives s a small cluster: three reporters, two slow nodes, one
// silent DataNode.
func feed(t *testing.T, s *Server, clock *fakeClock) {
	t.Helper()
	mustHeartbeat(t, s, report("10.0.0.1:9866", "10.0.0.9:9866", "10.0.0.8:9866"))
	clock.Advance(time.Second)
	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.9:9866"))
	mustHeartbeat(t, s, report("10.0.0.3:9866"))
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.9:9866"}) // no report field
	clock.Advance(time.Second)
}

// sameView fails unless a and b answer /slowpeers and /v1/datanodes alike.
func sameView(t *testing.T, a, b *Server) {
	t.Helper()
	for _, p := range []string{SlowPeersPath + "?top=100", DataNodesPath} {
		wa, wb := do(t, a, "GET", p, ""), do(t, b, "GET", p, "")
		if wa.Code != 200 || wb.Body.String() != wa.Body.String() {
			t.Fatalf("GET %s differs:\n%s\n%s", p, wa.Body, wb.Body)
		}
	}
}

func TestStateRoundTrip(t *testing.T) {
	a, clock, _ := newTestServer(t, nil)
	feed(t, a, clock)
	doc, err := MarshalState(a.ExportState(clock.Now()))
	if err != nil {
		t.Fatal(err)
	}
	st, err := ParseState(doc)
	if err != nil {
		t.Fatalf("ParseState of MarshalState: %v\n%s", err, doc)
	}
	b, clockB, _ := newTestServer(t, nil)
	clockB.Advance(2 * time.Second) // the same instant as a's clock
	if nr, nn := b.ImportState(clockB.Now(), st); nr != 2 || nn != 4 {
		t.Fatalf("ImportState applied %d reports, %d datanodes; want 2, 4", nr, nn)
	}
	sameView(t, a, b)
	// Expiry follows the arrival times, not the import.
	clock.Advance(a.Config().ReportValidity() - 1500*time.Millisecond)
	clockB.Advance(a.Config().ReportValidity() - 1500*time.Millisecond)
	sameView(t, a, b)
	if got := do(t, b, "GET", SlowPeersPath, "").Body.String(); !strings.Contains(got, "10.0.0.2:9866") || strings.Contains(got, "10.0.0.1:9866") {
		t.Fatalf("after the first report expired: %s", got)
	}
}

func TestStateEndpointNeedsToken(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) { c.AuthToken = "s3cret" })
	mustHeartbeat(t, s, report("10.0.0.1:9866", "10.0.0.9:9866"), "Authorization", "Bearer s3cret")
	clock.Advance(time.Second)
	wantError(t, do(t, s, "GET", StatePath, ""), http.StatusUnauthorized, "bearer token")
	wantError(t, do(t, s, "GET", StatePath, "", "Authorization", "Bearer wrong"), http.StatusUnauthorized, "bearer token")
	w := do(t, s, "GET", StatePath, "", "Authorization", "Bearer s3cret")
	if w.Code != 200 {
		t.Fatalf("with the token: %d %s", w.Code, w.Body)
	}
	if st, err := ParseState(w.Body.Bytes()); err != nil || len(st.Reports) != 1 {
		t.Fatalf("state %s: %v", w.Body, err)
	}
	open, _, _ := newTestServer(t, nil)
	if w := do(t, open, "GET", StatePath, ""); w.Code != 200 {
		t.Fatalf("open service: %d %s", w.Code, w.Body)
	}
}

func TestRestoreFromFirstLiveReplica(t *testing.T) {
	a, clock, _ := newTestServer(t, func(c *Config) { c.AuthToken = "tok" })
	mustHeartbeat(t, a, report("10.0.0.1:9866", "10.0.0.9:9866"), "Authorization", "Bearer tok")
	mustHeartbeat(t, a, report("10.0.0.2:9866", "10.0.0.9:9866"), "Authorization", "Bearer tok")
	live := httptest.NewServer(a.Handler())
	defer live.Close()
	hang := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer hanging.Close()
	defer close(hang)
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()

	b, clockB, logs := newTestServer(t, func(c *Config) { c.AuthToken = "tok" })
	clockB.Advance(clock.Now().Sub(clockB.Now()))
	start := time.Now()
	peer, err := b.Restore(context.Background(), []string{dead.URL, hanging.URL, live.URL}, nil)
	if err != nil || peer != live.URL {
		t.Fatalf("Restore = %q, %v; want %s\n%s", peer, err, live.URL, logs)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Restore took %v despite a live replica", took)
	}
	sameView(t, a, b)

	// A replica with another token does not give its state away.
	c, _, _ := newTestServer(t, func(c *Config) { c.AuthToken = "other" })
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := c.Restore(ctx, []string{live.URL}, nil); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("Restore with a wrong token: %v, want a 401", err)
	}
}

func TestStateFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	a, clock, _ := newTestServer(t, nil)
	feed(t, a, clock)
	if err := a.SaveStateFile(clock.Now(), path); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("dir holds %d files after a save, want 1 (no temporary left)", len(entries))
	}
	b, clockB, _ := newTestServer(t, nil)
	clockB.Advance(2 * time.Second)
	if from := b.StartState(context.Background(), nil, nil, path); from != "file" {
		t.Fatalf("StartState = %q, want file", from)
	}
	sameView(t, a, b)

	// A missing file: empty, quietly.
	c, _, logs := newTestServer(t, nil)
	if from := c.StartState(context.Background(), nil, nil, filepath.Join(dir, "none.json")); from != "empty" || strings.Contains(logs.String(), "ERROR") {
		t.Fatalf("missing file: %q\n%s", from, logs)
	}
	// A corrupt or foreign file: an error logged, empty, no crash.
	for name, body := range map[string]string{
		"truncated": `{"format":"slowpeer.namenode.state","version":1,"reports":[`,
		"foreign":   `{"format":"something.else","version":1}`,
		"future":    `{"format":"slowpeer.namenode.state","version":2}`,
		"bad node":  `{"format":"slowpeer.namenode.state","version":1,"datanodes":[{"node":"x","lastHeartbeat":"2024-01-01T00:00:00Z"}]}`,
		"binary":    "\x00\x01\x02",
	} {
		p := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		d, _, logs := newTestServer(t, nil)
		if from := d.StartState(context.Background(), nil, nil, p); from != "empty" || !strings.Contains(logs.String(), "state file unusable") {
			t.Errorf("%s: StartState = %q\n%s", name, from, logs)
		}
		if d.Tracker().Entries() != 0 || d.DataNodes().Len() != 0 {
			t.Errorf("%s: something was applied", name)
		}
	}
}

func TestRunStateFileSavesOnChangeAndAtEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	s, clock, _ := newTestServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.RunStateFile(ctx, path, time.Hour) }()
	mustHeartbeat(t, s, report("10.0.0.1:9866", "10.0.0.9:9866"))
	clock.Advance(time.Second)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b, _, _ := newTestServer(t, nil)
	if nr, nn, err := b.LoadStateFile(clock.Now(), path); err != nil || nr != 1 || nn != 1 {
		t.Fatalf("LoadStateFile = %d, %d, %v; want the final save", nr, nn, err)
	}
}

func FuzzParseState(f *testing.F) {
	f.Add([]byte(`{"format":"slowpeer.namenode.state","version":1,"savedAt":"2024-01-01T00:00:00Z","reports":[{"reporter":"a:1","arrival":"2024-01-01T00:00:00Z","slowPeers":[{"node":"b:1","latencyMs":3,"medianMs":1,"madMs":0.1,"upperLimitMs":2}]}],"datanodes":[{"node":"a:1","lastHeartbeat":"2024-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"format":"slowpeer.namenode.state","version":1}`))
	f.Add([]byte(`{"format":"slowpeer.namenode.state","version":1,"open":true}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParseState(data)
		if err != nil {
			return
		}
		doc, err := MarshalState(st)
		if err != nil {
			t.Fatalf("MarshalState of a parsed state: %v", err)
		}
		if _, err := ParseState(doc); err != nil {
			t.Fatalf("a parsed state does not parse again: %v\n%s", err, doc)
		}
	})
}

// WriteState streams exactly the bytes MarshalState writes, across pages.
func TestWriteStateIsMarshalState(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	feed(t, s, clock)
	for i := range 2*statePage + 7 {
		hb := reports.Heartbeat{Node: fmt.Sprintf("10.1.%d.%d:9866", i/250, i%250+1)}
		if i%3 == 0 {
			hb = report(hb.Node, "10.0.0.9:9866", "10.0.0.8:9866")
		}
		mustHeartbeat(t, s, hb)
	}
	now := clock.Now()
	want, err := MarshalState(s.ExportState(now))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := s.WriteState(&got, now); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("WriteState differs from MarshalState:\n%.300s\n%.300s", got.Bytes(), want)
	}
	if w := do(t, s, "GET", StatePath, ""); !bytes.Equal(w.Body.Bytes(), want) {
		t.Fatal("GET /v1/state differs from MarshalState")
	}
}

// The state file is written when the state changes, not at every tick:
// heartbeats alone rewrite it only once it is stateRefreshEvery old.
func TestStateFileOnlyWhenChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	s, clock, _ := newTestServer(t, nil)
	f := s.useStateFile(path)
	if !f.due(false) {
		t.Fatal("never saved, not due")
	}
	mustHeartbeat(t, s, report("10.0.0.1:9866", "10.0.0.9:9866"))
	if err := f.save(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if f.due(false) || f.due(true) {
		t.Fatal("due with nothing changed")
	}
	clock.Advance(time.Second)
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.1:9866"})
	if f.due(false) || !f.due(true) {
		t.Fatal("a heartbeat alone: due at the end only")
	}
	clock.Advance(s.stateRefreshEvery())
	if !f.due(false) {
		t.Fatal("heartbeat times stateRefreshEvery old, not due")
	}
	f.save(context.Background(), true)
	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.9:9866"))
	if f.took = time.Second; f.due(false) || !f.due(true) {
		t.Fatal("a new report within 10 times the last save's duration: due at the end only")
	}
	clock.Advance(stateSaveSpacing * time.Second)
	if !f.due(false) {
		t.Fatal("a new report, not due")
	}
}

// The state of an open service is marked open; a service restarted with a
// token imports none of it (what anyone could post stays out), one still
// open imports it, and the state of a service with a token carries no
// mark and is imported.
func TestOpenStateNotImportedWithToken(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open.json")
	a, clock, _ := newTestServer(t, nil)
	feed(t, a, clock)
	if err := a.SaveStateFile(clock.Now(), open); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(open); !strings.Contains(string(b), `"open":true`) {
		t.Fatalf("the state of an open service is not marked: %s", b)
	}
	b, clockB, logs := newTestServer(t, func(c *Config) { c.AuthToken = "tok" })
	clockB.Advance(2 * time.Second)
	if from := b.StartState(context.Background(), nil, nil, open); from != "empty" ||
		b.Tracker().Entries() != 0 || b.DataNodes().Len() != 0 || !strings.Contains(logs.String(), "not imported") {
		t.Fatalf("with a token: StartState = %q, %d entries, %d DataNodes\n%s", from, b.Tracker().Entries(), b.DataNodes().Len(), logs)
	}
	c, clockC, _ := newTestServer(t, nil)
	clockC.Advance(2 * time.Second)
	if from := c.StartState(context.Background(), nil, nil, open); from != "file" {
		t.Fatalf("open again: StartState = %q, want file", from)
	}
	sameView(t, a, c)

	closed := filepath.Join(dir, "closed.json")
	tok := []string{"Authorization", "Bearer tok"}
	mustHeartbeat(t, b, report("10.0.0.1:9866", "10.0.0.9:9866"), tok...)
	if err := b.SaveStateFile(clockB.Now(), closed); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(closed); strings.Contains(string(data), `"open"`) {
		t.Fatalf("the state of a service with a token is marked open: %s", data)
	}
	d, clockD, _ := newTestServer(t, func(c *Config) { c.AuthToken = "tok" })
	clockD.Advance(clockB.Now().Sub(clockD.Now()))
	if nr, nn, err := d.LoadStateFile(clockD.Now(), closed); err != nil || nr != 1 || nn != 1 {
		t.Fatalf("LoadStateFile of a closed state = %d, %d, %v", nr, nn, err)
	}
}

// The save when the service stops gives up after FinalSaveTimeout: the
// file keeps the last save whole, the save left behind writes nothing
// more and leaves no temporary file, and a line says so.
func TestFinalSaveBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "state.json")
		s, clock, logs := newTestServer(t, nil)
		mustHeartbeat(t, s, report("10.0.0.1:9866", "10.0.0.9:9866"))
		if err := s.SaveStateFile(clock.Now(), path); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(path)
		mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.9:9866"))
		f := s.useStateFile(path)
		release := make(chan struct{})
		f.write = func(ctx context.Context, path string, write func(io.Writer) error) error {
			<-release // a disk that takes its time
			return writeFileAtomic(ctx, path, write)
		}
		start := time.Now()
		f.final()
		if took := time.Since(start); took != FinalSaveTimeout {
			t.Fatalf("final save returned after %v, want %v", took, FinalSaveTimeout)
		}
		close(release)
		synctest.Wait()
		if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
			t.Fatalf("the file changed after the save was cut short:\n%s\n%s", before, after)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Fatalf("dir holds %d files, want the state file alone", len(entries))
		}
		if !strings.Contains(logs.String(), "final state save cut short") {
			t.Fatalf("no line says the save was cut short:\n%s", logs)
		}
		// A temporary file left by a process that exited mid-save goes at
		// the next start.
		if err := os.WriteFile(filepath.Join(dir, ".state.json.123.tmp"), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s.RunStateFile(ctx, path, time.Hour)
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Fatalf("dir holds %d files after a start, want the state file alone", len(entries))
		}
	})
}
