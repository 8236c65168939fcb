package namenode

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// TestForget: forgetting a dead DataNode drops it from the table, the
// reports (its own and those naming it), the diagnosis and the slow set,
// and from the state file at once: a Server started from the file does
// not know it. A heartbeat brings it back.
func TestForget(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	s, clock, logs := newTestServer(t, nil)
	const gone, reporter = "10.0.0.9:9866", "10.0.0.2:9866"
	mustHeartbeat(t, s, reports.Heartbeat{Node: gone, PeerLatencies: []reports.PeerLatency{{Node: reporter, LatencyMs: 1, Samples: 100}}})
	mustHeartbeat(t, s, report(gone, reporter))
	mustHeartbeat(t, s, report(reporter, gone))
	s.Diagnose(clock.Now())
	clock.Advance(s.Config().DeadAfter() + time.Second)
	mustHeartbeat(t, s, report(reporter, gone))

	s.useStateFile(file) // as RunStateFile does

	w := do(t, s, "POST", ForgetPath, `{"node":"`+gone+`"}`)
	if w.Code != 200 || w.Body.String() != `{"node":"10.0.0.9:9866","state":"dead"}` {
		t.Fatalf("POST %s: %d %s", ForgetPath, w.Code, w.Body)
	}
	if _, ok := s.nodes.Get(clock.Now(), gone); ok {
		t.Fatal("still in the table")
	}
	if s.tracker.Entries() != 0 || s.tracker.IsSlow(clock.Now(), gone) {
		t.Fatalf("the tracker holds %d entries", s.tracker.Entries())
	}
	if s.diag.matrix.Len() != 0 {
		t.Fatalf("the matrix holds %d cells", s.diag.matrix.Len())
	}
	if slices.Contains(s.slowSet.Nodes(), gone) {
		t.Fatal("still in the slow set")
	}
	if l := logLines(logs, "slow set left"); len(l) != 1 || !strings.Contains(l[0], `reason="forgotten by an operator"`) {
		t.Fatalf("exit logged: %q", l)
	}

	// The file was saved before the answer: a restart does not know it.
	s2, clock2, _ := newTestServer(t, nil)
	clock2.Advance(clock.Now().Sub(clock2.Now()))
	if got := s2.StartState(t.Context(), nil, nil, file); got != "file" {
		t.Fatalf("StartState: %s", got)
	}
	if _, ok := s2.nodes.Get(clock2.Now(), gone); ok {
		t.Fatal("the restarted service knows the forgotten node")
	}

	wantError(t, do(t, s, "POST", ForgetPath, `{"node":"`+gone+`"}`), 404, "no such DataNode")
	wantError(t, do(t, s, "POST", ForgetPath, `{"node":"nohost"}`), 400, "not host:port")
	wantError(t, do(t, s, "POST", ForgetPath, `{"node":"10.0.0.9:9866","x":1}`), 400, "unknown field")
	wantError(t, do(t, s, "POST", ForgetPath, `{"node":"10.0.0.9:9866"} {}`), 400, "data after")
	wantError(t, do(t, s, "POST", ForgetPath, `{"node":"10.0.0.9:9866"}`, "Content-Type", "text/plain"), 415, "application/json")
	wantError(t, do(t, s, "POST", ForgetPath, `{"node":"`+strings.Repeat("a", 5000)+`:1"}`), 413, "larger than")

	mustHeartbeat(t, s, reports.Heartbeat{Node: gone})
	if d, ok := s.nodes.Get(clock.Now(), gone); !ok || d.State != Live {
		t.Fatal("a heartbeat does not bring it back")
	}
}

// FuzzForget: any body of POST /v1/datanodes/forget gets an answer and
// forgets at most the node it names.
func FuzzForget(f *testing.F) {
	f.Add(`{"node":"10.0.0.9:9866"}`)
	f.Add(`{"node":"10.0.0.2:9866"}`)
	f.Add(`{"node":1}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, body string) {
		s, _, _ := newTestServer(t, nil)
		mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.2:9866"})
		w := do(t, s, "POST", ForgetPath, body)
		switch w.Code {
		case 200:
			if s.nodes.Len() != 0 {
				t.Fatalf("200 for %q, and the node is still there", body)
			}
		case 400, 404, 413:
			if s.nodes.Len() != 1 {
				t.Fatalf("%d for %q, and the node is gone", w.Code, body)
			}
		default:
			t.Fatalf("POST %q: %d %s", body, w.Code, w.Body)
		}
	})
}
