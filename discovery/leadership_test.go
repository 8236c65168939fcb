package discovery

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// A leader stops claiming (Leading, State, Cluster) exactly two thirds of
// the timeout after the sending of its last registry call that succeeded,
// and its leader work's context ends at that instant, whatever the
// backend's loop is doing (here: nothing; watchHeard alone acts). The
// end-to-end tests judge the replicas by this bound: no claim at or after
// the last answer's sending plus two thirds of the timeout.
func TestReplicaStepsDownAtTwoThirds(t *testing.T) {
	const timeout = 3 * time.Second
	f := func(name string, answers ...time.Duration) {
		t.Helper()
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				self := "127.0.0.1:9501"
				ended := make(chan time.Time, 1)
				cfg := DefaultReplicaConfig()
				cfg.Registry = RegistryURL{Kind: EtcdKind, Servers: []string{"127.0.0.1:2379"}, Root: "/slowpeer"}
				cfg.Timeout = timeout
				cfg.Self = Member{Server: self, Scheme: "http", Version: "test"}
				cfg.Logger = testLogger(t)
				cfg.Lead = func(ctx context.Context) error {
					<-ctx.Done()
					ended <- time.Now()
					return nil
				}
				r, err := NewReplica(cfg)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go r.watchHeard(ctx)
				start := time.Now()
				r.heardAt(start)
				r.promote()
				last := start
				for _, a := range answers { // later registry calls that succeeded, sent at start+a
					time.Sleep(start.Add(a).Sub(time.Now()))
					last = time.Now()
					r.heardAt(last)
				}
				deadline := last.Add(timeout * 2 / 3)
				claims := func() bool {
					return r.Leading() || r.State() == StateActive || r.Cluster().Leader == self
				}
				time.Sleep(deadline.Add(-time.Millisecond).Sub(time.Now()))
				if !r.Leading() || r.State() != StateActive || r.Cluster().Leader != self {
					t.Fatalf("1ms before the deadline: Leading %v, State %s, Cluster().Leader %q; want a leader",
						r.Leading(), r.State(), r.Cluster().Leader)
				}
				select {
				case at := <-ended:
					t.Fatalf("the leader work ended %v before the deadline", deadline.Sub(at))
				default:
				}
				time.Sleep(time.Millisecond)
				if claims() {
					t.Errorf("at the deadline: Leading %v, State %s, Cluster().Leader %q; want no claim",
						r.Leading(), r.State(), r.Cluster().Leader)
				}
				synctest.Wait()
				select {
				case at := <-ended:
					if !at.Equal(deadline) {
						t.Errorf("the leader work ended %v after the deadline", at.Sub(deadline))
					}
				default:
					t.Errorf("the leader work still runs at the deadline")
				}
				cancel()
				r.waitLead()
			})
		})
	}
	f("no answer after the win")
	f("answers on", time.Second, 1500*time.Millisecond)
	f("an answer just before the deadline", timeout*2/3-time.Millisecond)
}
