package datanode

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// call is one heartbeat a fakeSender received.
type call struct {
	at       time.Time
	deadline time.Time // of the request's context
	report   bool
	peers    int
}

// fakeSender is a NameNode-side service in memory. fail decides, by the
// 0-based number of the call, whether it fails; hang makes every call wait
// for its context.
type fakeSender struct {
	hang bool
	fail func(n int) bool

	mu    sync.Mutex
	calls []call
}

func (f *fakeSender) SendHeartbeat(ctx context.Context, hb reports.Heartbeat) (reports.HeartbeatReply, []string, error) {
	dl, _ := ctx.Deadline()
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, call{at: time.Now(), deadline: dl, report: hb.HasReport(), peers: len(hb.SlowPeers)})
	f.mu.Unlock()
	if f.hang {
		<-ctx.Done()
		return reports.HeartbeatReply{}, nil, ctx.Err()
	}
	if f.fail != nil && f.fail(n) {
		return reports.HeartbeatReply{}, nil, errors.New("status 503 Service Unavailable: no error message")
	}
	return reports.HeartbeatReply{}, nil, nil
}

func (f *fakeSender) Calls() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

func testActor(send heartbeatSender, detect detectFunc, report time.Duration, c *counters) *actor {
	if detect == nil {
		detect = func(time.Time) (Detection, error) { return Detection{SlowPeers: []reports.SlowPeer{}}, nil }
	}
	return &actor{node: "10.0.0.2:9866", send: send, detect: detect, heartbeat: 3 * time.Second,
		report: report, maxBackoff: 30 * time.Second, jitter: func() float64 { return 0.5 },
		counters: c, log: discard}
}

// runActors runs the actors in the bubble for d of fake time.
func runActors(d time.Duration, actors ...*actor) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, a := range actors {
		wg.Go(func() { a.run(ctx) })
	}
	time.Sleep(d) // fake time: the bubble's clock advances as the actors wait
	cancel()
	wg.Wait()
}

// Reference: BPOfferService runs one BPServiceActor thread per NameNode, so
// a NameNode that hangs holds up only its own actor.
func TestActorDeadServiceDoesNotBlockLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		live, dead := &fakeSender{}, &fakeSender{hang: true}
		var cl, cd counters
		runActors(30*time.Second+time.Millisecond, testActor(live, nil, time.Hour, &cl), testActor(dead, nil, time.Hour, &cd))

		// The live service got a heartbeat every 3 s, on the dot.
		calls := live.Calls()
		if len(calls) != 11 {
			t.Fatalf("live service got %d heartbeats in 30 s, want 11", len(calls))
		}
		for i, c := range calls {
			if want := start.Add(time.Duration(i) * 3 * time.Second); !c.at.Equal(want) {
				t.Fatalf("live heartbeat %d at %v, want %v", i, c.at.Sub(start), want.Sub(start))
			}
			if c.report != (i == 0) {
				t.Fatalf("live heartbeat %d carries a report: %v", i, c.report)
			}
		}
		// Each attempt on the dead one was cut after one heartbeat
		// interval, then retried with backoff (¾ of 3 s, 6 s, 12 s…,
		// jitter 0.5): at 0, 3+2.25, 8.25+4.5, 15.75+9; the fourth fails at
		// 27.75 and the fifth would start at 45.75.
		dc := dead.Calls()
		wantAt := []time.Duration{0, 5250 * time.Millisecond, 12750 * time.Millisecond, 24750 * time.Millisecond}
		if len(dc) != len(wantAt) {
			t.Fatalf("dead service got %d attempts, want %d: %+v", len(dc), len(wantAt), dc)
		}
		for i, c := range dc {
			if c.at.Sub(start) != wantAt[i] || c.deadline.Sub(c.at) != 3*time.Second || !c.report {
				t.Fatalf("dead attempt %d at %v with timeout %v, report %v; want at %v with timeout 3s and the report",
					i, c.at.Sub(start), c.deadline.Sub(c.at), c.report, wantAt[i])
			}
		}
		if s := cl.snapshot(); s.HeartbeatsSent != 11 || s.ReportsSent != 1 || s.HeartbeatsFailed != 0 {
			t.Fatalf("live counters %+v", s)
		}
		if s := cd.snapshot(); s.HeartbeatsSent != 0 || s.HeartbeatsFailed != 4 {
			t.Fatalf("dead counters %+v, want 4 failures", s)
		}
	})
}

// Reference: BPServiceActor.sendHeartBeat reschedules the report only after
// a successful send, so a report that failed is sent again.
func TestActorResendsFailedReport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		// Calls 0 and 1 fail, then the service answers until call 5,
		// which fails again while the next report is due.
		s := &fakeSender{fail: func(n int) bool { return n <= 1 || n == 5 }}
		a := testActor(s, nil, 10*time.Second, &counters{})
		runActors(25*time.Second, a)
		type want struct {
			at     time.Duration
			report bool
		}
		wants := []want{
			{0, true},                       // fails
			{2250 * time.Millisecond, true}, // fails; backoff 2.25 s
			{6750 * time.Millisecond, true}, // backoff 4.5 s; delivered: next report at 16.75
			{9750 * time.Millisecond, false},
			{12750 * time.Millisecond, false},
			{15750 * time.Millisecond, false}, // fails (n == 5)
			{18 * time.Second, true},          // 15.75 + 2.25: the report, now due, rides here
			{21 * time.Second, false},
			{24 * time.Second, false},
		}
		calls := s.Calls()
		if len(calls) != len(wants) {
			t.Fatalf("got %d heartbeats, want %d: %+v", len(calls), len(wants), calls)
		}
		for i, w := range wants {
			if calls[i].at.Sub(start) != w.at || calls[i].report != w.report {
				t.Fatalf("heartbeat %d at %v report %v, want at %v report %v",
					i, calls[i].at.Sub(start), calls[i].report, w.at, w.report)
			}
		}
		st := a.Status()
		if st.Heartbeats != 6 || st.Reports != 2 || st.Failures != 0 || st.LastError != "" {
			t.Fatalf("status %+v", st)
		}
	})
}

// A source without a report (a Hadoop DataNode not read yet) sends the
// heartbeat bare and keeps the report due.
func TestActorSourceWithoutReport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		detect := func(now time.Time) (Detection, error) {
			if now.Sub(start) < 5*time.Second {
				return Detection{}, errors.New("no /jmx document read yet")
			}
			return Detection{Peers: 10, SlowPeers: []reports.SlowPeer{{Node: "10.0.0.5:9866", LatencyMs: 40}}}, nil
		}
		s := &fakeSender{}
		runActors(10*time.Second, testActor(s, detect, time.Hour, &counters{}))
		var got []bool
		for _, c := range s.Calls() {
			got = append(got, c.report)
		}
		if len(got) != 4 || got[0] || got[1] || !got[2] || got[3] {
			t.Fatalf("reports on heartbeats at 0, 3, 6, 9 s: %v, want only the one at 6 s", got)
		}
		if s.Calls()[2].peers != 1 {
			t.Fatalf("the report carried %d peers, want 1", s.Calls()[2].peers)
		}
	})
}

// A first test skipped for lack of data is not the first report: the
// heartbeats go bare until there is data, and the report goes on the very
// next one, not a report interval later. Once a report went, a skipped
// test is reported and rescheduled as any other.
func TestActorFirstReportWaitsForData(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		detect := func(now time.Time) (Detection, error) {
			el := now.Sub(start)
			if el < 5*time.Second || el >= 8*time.Second {
				return Detection{Peers: 2, Skipped: true, SlowPeers: []reports.SlowPeer{}}, nil
			}
			return Detection{Peers: 10, SlowPeers: []reports.SlowPeer{{Node: "10.0.0.5:9866", LatencyMs: 40}}}, nil
		}
		s := &fakeSender{}
		runActors(20*time.Second, testActor(s, detect, 9*time.Second, &counters{}))
		var got []bool
		for _, c := range s.Calls() {
			got = append(got, c.report)
		}
		// Heartbeats at 0, 3, 6, 9, 12, 15, 18 s: bare, bare, the report
		// with data at 6 s, then the skipped one due 9 s later, at 15 s.
		want := []bool{false, false, true, false, false, true, false}
		if len(got) != len(want) {
			t.Fatalf("reports on the heartbeats = %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("reports on the heartbeats = %v, want %v", got, want)
			}
		}
		if c := s.Calls(); c[2].peers != 1 || c[5].peers != 0 {
			t.Fatalf("the reports carried %d and %d peers, want 1 and 0", c[2].peers, c[5].peers)
		}
	})
}
