package namenode

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHeavyWorkTakesTurns: heavy work runs once it has a turn; while every
// turn is taken it waits, and gives up when its context ends.
func TestHeavyWorkTakesTurns(t *testing.T) {
	h := make(heavyWork, 1)
	release, started := make(chan struct{}), make(chan struct{})
	first := make(chan bool)
	go func() { first <- h.do(context.Background(), func() { close(started); <-release }) }()
	<-started

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // every turn is taken: it can only give up
	if h.do(ctx, func() { t.Error("ran without a turn") }) {
		t.Fatal("do reported it ran without a turn")
	}
	close(release)
	if !<-first {
		t.Fatal("the first work did not report it ran")
	}
	ran := false
	if !h.do(context.Background(), func() { ran = true }) || !ran {
		t.Fatal("a free turn was not taken")
	}
}

// TestHeavyReadsLeaveHeartbeats: while the long reads hold every turn, a
// heartbeat is answered at once and /jmx waits; a /jmx whose client left
// while it waited is not answered.
func TestHeavyReadsLeaveHeartbeats(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	for range cap(s.heavy) {
		s.heavy <- struct{}{}
	}
	mustHeartbeat(t, s, report("10.0.0.1:9866", "10.0.0.2:9866")) // fails the test unless 200

	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest(http.MethodGet, JMXPath, nil).WithContext(ctx)
	w := httptest.NewRecorder()
	cancel()
	s.Handler().ServeHTTP(w, req)
	if w.Body.Len() != 0 {
		t.Fatalf("/jmx answered %d %q without a turn", w.Code, w.Body.String())
	}

	for range cap(s.heavy) {
		<-s.heavy
	}
	if w := do(t, s, http.MethodGet, JMXPath, ""); w.Code != http.StatusOK {
		t.Fatalf("/jmx with a free turn: %d %s", w.Code, w.Body.String())
	}
}
