package suspect

import (
	"fmt"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// healthy feeds one heartbeat of every node of names, each with a block
// to every peer: latencyMs of slow, 1 ms otherwise.
func feed(d *Detector, now time.Time, names []string, slow func(a, b string) bool) {
	for _, a := range names {
		var rs []reports.RecentLatency
		for _, b := range names {
			if a == b {
				continue
			}
			x := 1.0
			if slow(a, b) {
				x = 10
			}
			rs = append(rs, reports.RecentLatency{Node: b, LatencyMs: x, Blocks: 1})
		}
		d.Observe(now, a, rs)
	}
}

func names(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("n%d:1", i))
	}
	return out
}

var all = func(string) bool { return true }

// A round's requests go out once each, at most MaxProbeRequests a reply
// and never a node twice; the view shows them; Forget drops the suspect.
func TestRequests(t *testing.T) {
	d := New(DefaultConfig())
	ns := names(8)
	now := time.Unix(1000, 0)
	s := ns[3]
	slow := func(_, b string) bool { return b == s }
	feed(d, now, ns, slow)
	if vs := d.Step(now, all); len(vs) != 0 {
		t.Fatalf("verdicts at once: %+v", vs)
	}
	views := d.Suspects(now)
	if len(views) != 1 || views[0].Target != s || views[0].State != Suspected || views[0].Kind != Inbound {
		t.Fatalf("views %+v, want %s suspected inbound", views, s)
	}
	for _, a := range ns {
		if r := d.Requests(now, a); r != nil {
			t.Fatalf("requests before the round gap: %s %+v", a, r)
		}
	}
	now = now.Add(DefaultRoundGap)
	d.Step(now, all)
	asked := 0
	for _, a := range ns {
		rs := d.Requests(now, a)
		seen := map[string]bool{}
		for _, r := range rs {
			if seen[r.Node] || r.Node == a || r.Blocks != DefaultBlocks || r.Round < 1 {
				t.Errorf("%s: bad request %+v in %+v", a, r, rs)
			}
			seen[r.Node] = true
		}
		if len(rs) > reports.MaxProbeRequests {
			t.Errorf("%s: %d requests", a, len(rs))
		}
		if a == s && len(rs) != DefaultWitnesses {
			t.Errorf("the suspect is asked %d probes, want one to each of %d peers", len(rs), DefaultWitnesses)
		}
		asked += len(rs)
		if again := d.Requests(now, a); again != nil {
			t.Errorf("%s: requests handed out twice: %+v", a, again)
		}
	}
	// Each witness probes the suspect and a control; the suspect probes
	// as many of its peers, each probed by another of its reporters too.
	if want := 4 * DefaultWitnesses; asked != want {
		t.Errorf("%d requests, want %d", asked, want)
	}
	v := d.Suspects(now)[0]
	if v.State != Confirming || len(v.Probes) != asked {
		t.Errorf("view %+v, want confirming with %d probes", v, asked)
	}
	for _, p := range v.Probes {
		if !p.Handed {
			t.Errorf("probe %+v not handed", p)
		}
	}
	d.Forget(s)
	if v := d.Suspects(now); len(v) != 0 {
		t.Errorf("after Forget: %+v", v)
	}
}

// Answers to a round nobody asked change no round, and a round of agents
// that never answer (reading -hadoop-jmx) is judged at RoundTimeout and
// clears the suspicion.
func TestRoundTimeout(t *testing.T) {
	d := New(DefaultConfig())
	ns := names(6)
	now := time.Unix(1000, 0)
	slow := func(_, b string) bool { return b == ns[0] }
	feed(d, now, ns, slow)
	d.Step(now, all)
	now = now.Add(DefaultRoundGap)
	d.Step(now, all)
	d.Observe(now, ns[1], []reports.RecentLatency{{Node: ns[0], LatencyMs: 50, Blocks: 3, Round: 999}})
	now = now.Add(RoundTimeout - time.Second)
	if vs := d.Step(now, all); len(vs) != 0 {
		t.Fatalf("verdict before the timeout: %+v", vs)
	}
	now = now.Add(time.Second)
	vs := d.Step(now, all)
	if len(vs) != 1 || vs[0].Confirmed || vs[0].Target != ns[0] {
		t.Fatalf("verdicts %+v, want %s cleared", vs, ns[0])
	}
	if v := d.Suspects(now); len(v) != 1 || v[0].State != Cleared {
		t.Fatalf("view %+v, want cleared", v)
	}
	if v := d.Suspects(now.Add(ClearedFor)); len(v) != 1 {
		t.Fatalf("cleared suspicion gone before a Step: %+v", v)
	}
	d.Step(now.Add(ClearedFor), all)
	if v := d.Suspects(now.Add(ClearedFor)); len(v) != 0 {
		t.Fatalf("cleared suspicion kept past ClearedFor: %+v", v)
	}
}

// A node that is not live (dead, or excluded) is never a suspect.
func TestNotLive(t *testing.T) {
	d := New(DefaultConfig())
	ns := names(6)
	now := time.Unix(1000, 0)
	feed(d, now, ns, func(_, b string) bool { return b == ns[0] })
	d.Step(now, func(n string) bool { return n != ns[0] })
	if v := d.Suspects(now); len(v) != 0 {
		t.Fatalf("suspects %+v", v)
	}
}

// A suspect that sends no recent latencies (an agent reading
// -hadoop-jmx) is not asked to probe: its witnesses judge it alone.
func TestSilentSuspect(t *testing.T) {
	d := New(DefaultConfig())
	ns := names(6)
	s := ns[2]
	now := time.Unix(1000, 0)
	var talking []string
	for _, n := range ns {
		if n != s {
			talking = append(talking, n)
		}
	}
	for _, a := range talking {
		var rs []reports.RecentLatency
		for _, b := range ns {
			if a != b {
				x := 1.0
				if b == s {
					x = 10
				}
				rs = append(rs, reports.RecentLatency{Node: b, LatencyMs: x, Blocks: 1})
			}
		}
		d.Observe(now, a, rs)
	}
	d.Step(now, all)
	now = now.Add(DefaultRoundGap)
	d.Step(now, all)
	if r := d.Requests(now, s); r != nil {
		t.Fatalf("the silent suspect is asked %+v", r)
	}
	asked := 0
	for _, a := range talking {
		for _, r := range d.Requests(now, a) {
			asked++
			// answer at once: the suspect ten times its control
			x := 1.0
			if r.Node == s {
				x = 10
			}
			d.Observe(now.Add(time.Second), a, []reports.RecentLatency{{Node: r.Node, LatencyMs: x, Blocks: 3, Round: r.Round}})
		}
	}
	if asked != 2*DefaultWitnesses {
		t.Fatalf("%d requests, want %d", asked, 2*DefaultWitnesses)
	}
	if vs := d.Step(now.Add(time.Second), all); len(vs) != 0 {
		t.Fatalf("verdict after one round: %+v", vs)
	}
	if v := d.Suspects(now); v[0].Rounds != 1 || v[0].Kind != Inbound {
		t.Fatalf("after the first round: %+v", v[0])
	}
}
