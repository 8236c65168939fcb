package discovery

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// terms records every leader term of a test's replicas: who, from when
// to when, so that a test can tell whether two ever overlapped.
type terms struct {
	mu   sync.Mutex
	runs []termRun
}

type termRun struct {
	who        string
	start, end time.Time // end zero while it runs
}

func (ts *terms) lead(who string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		ts.mu.Lock()
		i := len(ts.runs)
		ts.runs = append(ts.runs, termRun{who: who, start: time.Now()})
		ts.mu.Unlock()
		<-ctx.Done()
		ts.mu.Lock()
		ts.runs[i].end = time.Now()
		ts.mu.Unlock()
		return nil
	}
}

// overlap names two terms of different replicas that ran at once, or "".
func (ts *terms) overlap() string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for i, a := range ts.runs {
		for _, b := range ts.runs[i+1:] {
			aEnd, bEnd := a.end, b.end
			if aEnd.IsZero() {
				aEnd = time.Now()
			}
			if bEnd.IsZero() {
				bEnd = time.Now()
			}
			if a.who != b.who && a.start.Before(bEnd) && b.start.Before(aEnd) {
				return fmt.Sprintf("%s led %s–%s while %s led %s–%s", a.who, a.start.Format(time.StampMilli),
					aEnd.Format(time.StampMilli), b.who, b.start.Format(time.StampMilli), bEnd.Format(time.StampMilli))
			}
		}
	}
	return ""
}

// lastEnd is when who's last term ended; zero while it runs or never ran.
func (ts *terms) lastEnd(who string) time.Time {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for i := len(ts.runs) - 1; i >= 0; i-- {
		if ts.runs[i].who == who {
			return ts.runs[i].end
		}
	}
	return time.Time{}
}

// claims polls every 50 ms how many replicas say they lead (State,
// Cluster) and keeps the first instant two did.
func claims(t *testing.T, rs []*Replica) func() string {
	done := make(chan struct{})
	ended := make(chan struct{})
	var mu sync.Mutex
	seen := ""
	go func() {
		defer close(ended)
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			var who []string
			for _, r := range rs {
				if r.State() == StateActive || r.Cluster().Leader == r.cfg.Self.Server {
					who = append(who, r.cfg.Self.Server)
				}
			}
			mu.Lock()
			if len(who) > 1 && seen == "" {
				seen = fmt.Sprintf("at %s %v all claimed to lead", time.Now().Format(time.StampMilli), who)
			}
			mu.Unlock()
		}
	}()
	var once sync.Once
	stop := func() string {
		once.Do(func() { close(done); <-ended })
		mu.Lock()
		defer mu.Unlock()
		return seen
	}
	t.Cleanup(func() { stop() })
	return stop
}

// partitionReplicas starts n replicas on u, each reaching the registry
// through a freezer of its own, their terms recorded in ts.
func partitionReplicas(t *testing.T, u RegistryURL, n int, timeout time.Duration, ts *terms) ([]*Replica, []*freezer) {
	var rs []*Replica
	var fs []*freezer
	for i := range n {
		f := newFreezer(t, u.Servers[0])
		ru := u
		ru.Servers = []string{f.Addr}
		cfg := DefaultReplicaConfig()
		cfg.Registry, cfg.Timeout = ru, timeout
		cfg.Self = Member{Server: fmt.Sprintf("127.0.0.1:%d", 9401+i), Scheme: "http", Version: "test"}
		cfg.Logger = testLogger(t).With("replica", cfg.Self.Server)
		cfg.Lead = ts.lead(cfg.Self.Server)
		r, err := NewReplica(cfg)
		if err != nil {
			t.Fatal(err)
		}
		start(t, r.Run)
		rs, fs = append(rs, r), append(fs, f)
	}
	return rs, fs
}

func leaderOf(rs []*Replica) (int, int) {
	n, at := 0, -1
	for i, r := range rs {
		if r.State() == StateActive {
			n, at = n+1, i
		}
	}
	return n, at
}

// The leader cut off from the registry (ZooKeeper or etcd) for three
// timeouts: its leader work stops within two thirds of the timeout of
// the cut, another replica takes over once its session or lease has
// expired, never while it still works, and it makes no more than a few
// registry calls while cut off; healed, it comes back as a standby that
// names the new leader.
func TestReplicaLeaderPartitioned(t *testing.T) {
	const timeout = 2 * time.Second
	for _, kind := range []string{ZooKeeperKind, EtcdKind} {
		t.Run(kind, func(t *testing.T) {
			u := testRegistry(t, kind)
			var ts terms
			rs, fs := partitionReplicas(t, u, 3, timeout, &ts)
			stopClaims := claims(t, rs)
			testenv.WaitFor(t, "one leader", 20*time.Second, func() bool { n, _ := leaderOf(rs); return n == 1 })
			_, l := leaderOf(rs)
			old := rs[l]
			calls := old.calls.Load()
			cut := time.Now()
			fs[l].freeze()
			testenv.WaitFor(t, "the cut-off leader to stop", timeout, func() bool { return !ts.lastEnd(old.cfg.Self.Server).IsZero() })
			stopped := ts.lastEnd(old.cfg.Self.Server).Sub(cut)
			t.Logf("%s: the cut-off leader's work stopped %v after the cut (timeout %v)", kind, stopped.Round(time.Millisecond), timeout)
			if stopped > timeout*2/3+250*time.Millisecond {
				t.Errorf("the cut-off leader worked on for %v, more than two thirds of the timeout", stopped)
			}
			var next int
			testenv.WaitFor(t, "another leader", 3*timeout+10*time.Second, func() bool {
				n, at := leaderOf(rs)
				next = at
				return n == 1 && at != l
			})
			t.Logf("%s: %s leads %v after the cut", kind, rs[next].cfg.Self.Server, time.Since(cut).Round(time.Millisecond))
			time.Sleep(max(0, 3*timeout-time.Since(cut)))
			if kind == EtcdKind {
				n := old.calls.Load() - calls
				most := int64(3 * 3 * 5) // three timeouts of keep-alives every fifth, thrice
				t.Logf("etcd: %d calls of the cut-off replica in %v", n, time.Since(cut).Round(time.Millisecond))
				if n > most {
					t.Errorf("the cut-off replica made %d etcd calls in three timeouts, more than %d", n, most)
				}
			}
			fs[l].thaw()
			testenv.WaitFor(t, "the healed replica to name the new leader", 3*timeout+15*time.Second, func() bool {
				c := old.Cluster()
				return c.Leader == rs[next].cfg.Self.Server && old.State() == StateStandby && len(c.Replicas) == 3
			})
			if v := stopClaims(); v != "" {
				t.Error(v)
			}
			if v := ts.overlap(); v != "" {
				t.Error(v)
			}
		})
	}
}

// The leader cut off from the registry (ZooKeeper or etcd) until it
// steps down, two thirds of the timeout, and healed at once, before its
// session or lease can expire: once the registry answers again, a replica
// leads again within two timeouts (the same one, which still holds the
// election), never two at once: the replicas are not left without a
// leader while the old one holds the election.
func TestReplicaLeaderBlip(t *testing.T) {
	const timeout = 3 * time.Second
	for _, kind := range []string{ZooKeeperKind, EtcdKind} {
		t.Run(kind, func(t *testing.T) {
			u := testRegistry(t, kind)
			var ts terms
			rs, fs := partitionReplicas(t, u, 3, timeout, &ts)
			stopClaims := claims(t, rs)
			// At rest (each replica sees the three), so that the cut
			// holds up no read of a change, whose failure would end an
			// etcd term early.
			testenv.WaitFor(t, "one leader, named by all", 20*time.Second, func() bool {
				n, l := leaderOf(rs)
				return n == 1 && !slices.ContainsFunc(rs, func(r *Replica) bool {
					c := r.Cluster()
					return len(c.Replicas) != 3 || c.Leader != rs[l].cfg.Self.Server
				})
			})
			_, l := leaderOf(rs)
			cut := time.Now()
			fs[l].freeze()
			testenv.WaitFor(t, "the cut-off leader to stop", timeout, func() bool { return !ts.lastEnd(rs[l].cfg.Self.Server).IsZero() })
			fs[l].thaw()
			healed := time.Now()
			testenv.WaitFor(t, "one leader again", 2*timeout, func() bool { n, _ := leaderOf(rs); return n == 1 })
			_, now := leaderOf(rs)
			t.Logf("%s: cut off %v (timeout %v); %s leads %v after the heal (%s led before)", kind, healed.Sub(cut).Round(time.Millisecond),
				timeout, rs[now].cfg.Self.Server, time.Since(healed).Round(time.Millisecond), rs[l].cfg.Self.Server)
			if v := stopClaims(); v != "" {
				t.Error(v)
			}
			if v := ts.overlap(); v != "" {
				t.Error(v)
			}
		})
	}
}

// etcd itself killed for three timeouts, then started again on its data:
// the leader stops within two thirds of the timeout, no replica leads
// while etcd is away, none spins (a few calls per timeout), and one leads
// again once etcd is back.
func TestReplicaEtcdKilled(t *testing.T) {
	const timeout = 2 * time.Second
	e := testenv.StartEtcd(t, nil)
	u := RegistryURL{Kind: EtcdKind, Servers: []string{e.Addr}, Root: "/slowpeer"}
	var ts terms
	rs, _ := partitionReplicas(t, u, 3, timeout, &ts)
	stopClaims := claims(t, rs)
	testenv.WaitFor(t, "one leader", 20*time.Second, func() bool { n, _ := leaderOf(rs); return n == 1 })
	_, l := leaderOf(rs)
	var before int64
	for _, r := range rs {
		before += r.calls.Load()
	}
	killed := time.Now()
	e.Kill()
	testenv.WaitFor(t, "the leader to stop", timeout, func() bool { return !ts.lastEnd(rs[l].cfg.Self.Server).IsZero() })
	stopped := ts.lastEnd(rs[l].cfg.Self.Server).Sub(killed)
	t.Logf("the leader's work stopped %v after etcd was killed (timeout %v)", stopped.Round(time.Millisecond), timeout)
	if stopped > timeout*2/3+250*time.Millisecond {
		t.Errorf("the leader worked on for %v without etcd", stopped)
	}
	for time.Since(killed) < 3*timeout {
		if n, _ := leaderOf(rs); n > 0 {
			t.Fatalf("a replica leads %v after etcd died", time.Since(killed).Round(time.Millisecond))
		}
		time.Sleep(50 * time.Millisecond)
	}
	var during int64
	for _, r := range rs {
		during += r.calls.Load()
	}
	t.Logf("%d etcd calls of 3 replicas in %v without etcd", during-before, time.Since(killed).Round(time.Millisecond))
	if most := int64(3 * 3 * 3 * 5); during-before > most {
		t.Errorf("%d etcd calls in three timeouts without etcd, more than %d", during-before, most)
	}
	e.Start()
	back := time.Now()
	testenv.WaitFor(t, "one leader again", 3*timeout+15*time.Second, func() bool {
		n, at := leaderOf(rs)
		if n != 1 {
			return false
		}
		for _, r := range rs {
			if r.Cluster().Leader != rs[at].cfg.Self.Server {
				return false
			}
		}
		return true
	})
	t.Logf("one leader again %v after etcd came back", time.Since(back).Round(time.Millisecond))
	if v := stopClaims(); v != "" {
		t.Error(v)
	}
	if v := ts.overlap(); v != "" {
		t.Error(v)
	}
}
