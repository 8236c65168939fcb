package namenode

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// newPickerServer is a test Server with a running HiveServer picker on a
// new memory store mounted, knowing servers; the picker reads the Server's
// fake clock.
func newPickerServer(t *testing.T, servers ...string) (*Server, *fakeClock) {
	t.Helper()
	s, clock, _ := newTestServer(t, nil)
	cfg := hiveserver.DefaultConfig()
	cfg.Servers = servers
	cfg.Now = clock.Now
	cfg.RandIntN = func(int) int { return 0 }
	p, err := hiveserver.New(cfg, &hiveserver.MemoryStore{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-ran; err != nil {
			t.Error(err)
		}
	})
	s.MountPicker(p)
	return s, clock
}

func hookEvent(server, hook, queryID string, ms int64) string {
	return url.Values{"server": {server}, "hook": {hook}, "queryId": {queryID}, "queryStr": {"select%201"},
		"jobName": {"job"}, "timestamp": {fmt.Sprint(ms)}}.Encode()
}

func TestMountPicker(t *testing.T) {
	s, clock := newPickerServer(t, "10.0.0.5:10000", "10.0.0.6:10000")
	send := func(server, hook, queryID string) {
		t.Helper()
		w := do(t, s, "POST", hiveserver.SendPath, hookEvent(server, hook, queryID, clock.Now().UnixMilli()),
			"Content-Type", "application/x-www-form-urlencoded")
		if w.Code != 200 {
			t.Fatalf("send %s %s: %d %s", hook, queryID, w.Code, w.Body)
		}
	}
	pick := func() (int, hiveserver.Status) {
		t.Helper()
		w := do(t, s, "GET", hiveserver.PickPath, "")
		var st hiveserver.Status
		if w.Code == 200 {
			if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil {
				t.Fatal(err)
			}
		}
		return w.Code, st
	}

	// Two statements run on .5: the idle .6 is picked.
	send("10.0.0.5:10000", "PRE_EXEC_HOOK", "q1")
	send("10.0.0.5:10000", "PRE_EXEC_HOOK", "q2")
	if code, st := pick(); code != 200 || st.Server != "10.0.0.6:10000" {
		t.Fatalf("pick = %d %+v, want the idle 10.0.0.6:10000", code, st)
	}
	// Peers report the DataNode on .6's host slow: .5 is picked though
	// it is busier.
	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.6:9866"))
	if code, st := pick(); code != 200 || st.Server != "10.0.0.5:10000" || st.Running != 2 {
		t.Fatalf("pick = %d %+v, want 10.0.0.5:10000 with 2 running", code, st)
	}
	w := do(t, s, "GET", hiveserver.ServersPath, "")
	if !strings.Contains(w.Body.String(), `{"server":"10.0.0.6:10000","running":0,"load":0,"slowHost":true}`) {
		t.Fatalf("%s = %s", hiveserver.ServersPath, w.Body)
	}
	// Both hosts slow: none is eligible, 503 with the reason.
	mustHeartbeat(t, s, report("10.0.0.3:9866", "10.0.0.5:9866"))
	if code, _ := pick(); code != 503 {
		t.Fatalf("pick with every host slow = %d, want 503", code)
	}
	// The reports expire: .6 is idle again and wins.
	clock.Advance(s.Config().ReportValidity())
	if code, st := pick(); code != 200 || st.Server != "10.0.0.6:10000" {
		t.Fatalf("pick after expiry = %d %+v", code, st)
	}

	_, got := scrape(t, s)
	for series, want := range map[string]float64{
		`slowpeer_hiveserver_running{server="10.0.0.5:10000"}`: 2,
		`slowpeer_hiveserver_running{server="10.0.0.6:10000"}`: 0,
		`slowpeer_hiveserver_events_total`:                     2,
		`slowpeer_hiveserver_picks_total{result="ok"}`:         3,
		`slowpeer_hiveserver_picks_total{result="none"}`:       1,
	} {
		if v, ok := got[series]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", series, v, ok, want)
		}
	}
}

func TestMountPickerRefusesBadEvents(t *testing.T) {
	s, clock := newPickerServer(t)
	w := do(t, s, "POST", hiveserver.SendPath, hookEvent("hs:10000", "NOT_A_HOOK", "q1", clock.Now().UnixMilli()),
		"Content-Type", "application/x-www-form-urlencoded")
	if w.Code != 400 {
		t.Fatalf("unknown hook: %d %s", w.Code, w.Body)
	}
	w = do(t, s, "GET", hiveserver.ServersPath, "")
	if strings.TrimSpace(w.Body.String()) != "[]" {
		t.Fatalf("a refused event left a trace: %s", w.Body)
	}
}
