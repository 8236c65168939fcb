package demo

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/suspect"
)

// newTestDemo is a demo around a service that never runs, its slow node
// slowID.
func newTestDemo(t *testing.T, slowID string) *demo {
	t.Helper()
	cfg := namenode.DefaultConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	srv, err := namenode.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	return &demo{cfg: c, srv: srv, slowID: slowID, falsePos: map[string]bool{}, events: &bytes.Buffer{}, start: time.Now()}
}

// The result object "demo -json" prints: its fields, as DESIGN.md lists
// them, before and after the slow node is found.
func TestResultJSON(t *testing.T) {
	f := func(d *demo, want string) {
		t.Helper()
		var b bytes.Buffer
		if err := d.writeJSON(&b); err != nil || b.String() != want+"\n" {
			t.Errorf("writeJSON = %q, %v; want %s", b.String(), err, want)
		}
	}
	d := newTestDemo(t, "")
	f(d, `{"injected":null,"found":false,"timeToDetectSeconds":null,"reporters":0,"kind":null,"falsePositives":[]}`)
	d = newTestDemo(t, "127.0.0.1:9866")
	f(d, `{"injected":{"node":"127.0.0.1:9866","fault":"ack-delay=50ms"},"found":false,"timeToDetectSeconds":null,"reporters":0,"kind":null,"falsePositives":[]}`)
	d.found, d.kind, d.reporters = 20300*time.Millisecond, "inbound", 3
	d.falsePositive("127.0.0.2:9866", "test")
	d.falsePositive("127.0.0.2:9866", "again") // once
	f(d, `{"injected":{"node":"127.0.0.1:9866","fault":"ack-delay=50ms"},"found":true,"timeToDetectSeconds":20.3,"reporters":3,"kind":"inbound","falsePositives":["127.0.0.2:9866"]}`)
	if n := strings.Count(d.events.(*bytes.Buffer).String(), "false positive"); n != 1 {
		t.Errorf("the false positive logged %d times, want once:\n%s", n, d.events)
	}
}

func TestSummaries(t *testing.T) {
	if got := suspectSummary(nil); got != "none" {
		t.Errorf("suspectSummary(nil) = %q", got)
	}
	vs := []suspect.View{
		{Node: "a:1", Kind: "inbound", State: suspect.Confirmed},
		{Node: "b:1", Peer: "c:1", Kind: "link", State: suspect.Cleared},
	}
	if got, want := suspectSummary(vs), "a:1 inbound "+string(suspect.Confirmed); got != want {
		t.Errorf("suspectSummary = %q, want %q", got, want)
	}
	if got := slowSummary(nil); got != "none" {
		t.Errorf("slowSummary(nil) = %q", got)
	}
	if got := findingSummary(nil); got != "none" {
		t.Errorf("findingSummary(nil) = %q", got)
	}
}

// Once quiet is set, the agents' log says nothing more.
func TestQuietHandler(t *testing.T) {
	var b bytes.Buffer
	var quiet atomic.Bool
	log := slog.New(quietHandler{slog.NewTextHandler(&b, nil), &quiet}).With("agent", 1)
	log.Warn("before")
	quiet.Store(true)
	log.Warn("after")
	if got := b.String(); !strings.Contains(got, "msg=before agent=1") || strings.Contains(got, "after") {
		t.Errorf("log %q", got)
	}
	if (quietHandler{slog.NewTextHandler(&b, nil), &quiet}).Enabled(context.Background(), slog.LevelError) {
		t.Error("enabled while quiet")
	}
}
