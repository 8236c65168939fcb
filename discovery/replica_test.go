package discovery

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// testRegistry returns a registry URL of the test's own under the test
// ZooKeeper or etcd, removed at the end.
func testRegistry(t *testing.T, kind string) RegistryURL {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	root := "/slowpeer-test-" + strings.ReplaceAll(t.Name(), "/", "-") + "-" + hex.EncodeToString(b[:])
	switch kind {
	case ZooKeeperKind:
		servers := zkServers(t)
		t.Cleanup(func() {
			c := zkConnect(t, servers, 10*time.Second, nil)
			defer c.Close()
			if err := zkDeleteAll(c, root); err != nil {
				t.Errorf("clean up %s: %v", root, err)
			}
		})
		return RegistryURL{Kind: kind, Servers: servers, Root: root}
	default:
		servers := testenv.Etcd(t)
		t.Cleanup(func() {
			cli := etcdTestClient(t, servers)
			if _, err := cli.Delete(context.Background(), root, clientv3.WithPrefix()); err != nil {
				t.Errorf("clean up %s: %v", root, err)
			}
		})
		return RegistryURL{Kind: kind, Servers: servers, Root: root}
	}
}

func etcdTestClient(t *testing.T, servers []string) *clientv3.Client {
	t.Helper()
	cli, err := newEtcdClient(RegistryURL{Kind: EtcdKind, Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// testReplica is one replica of a test and the count of its running
// leader terms.
type testReplica struct {
	*Replica
	stop    func() error
	ended   chan error // receives Run's result when it returns by itself
	running *atomic.Int32
}

func startReplica(t *testing.T, u RegistryURL, port int, running *atomic.Int32, overlap *atomic.Bool) testReplica {
	t.Helper()
	cfg := DefaultReplicaConfig()
	cfg.Registry, cfg.Timeout = u, 2*time.Second
	cfg.Self = Member{Server: fmt.Sprintf("127.0.0.1:%d", port), Scheme: "http", Version: "test"}
	cfg.Logger = testLogger(t).With("replica", port)
	cfg.Lead = func(ctx context.Context) error {
		if running.Add(1) > 1 {
			overlap.Store(true)
		}
		<-ctx.Done()
		running.Add(-1)
		return nil
	}
	r, err := NewReplica(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	stop := start(t, func(ctx context.Context) error {
		err := r.Run(ctx)
		if ctx.Err() == nil {
			ended <- err
		}
		return err
	})
	return testReplica{Replica: r, stop: stop, ended: ended, running: running}
}

func leaders(rs []testReplica) (n int, who string) {
	for _, r := range rs {
		if r.State() == StateActive {
			n++
			who = r.cfg.Self.Server
		}
	}
	return n, who
}

func TestReplicaElection(t *testing.T) {
	for _, kind := range []string{ZooKeeperKind, EtcdKind} {
		t.Run(kind, func(t *testing.T) {
			u := testRegistry(t, kind)
			var running atomic.Int32
			var overlap atomic.Bool
			var rs []testReplica
			for i := range 3 {
				rs = append(rs, startReplica(t, u, 9001+i, &running, &overlap))
			}
			var leader string
			testenv.WaitFor(t, "one leader, known to all", 10*time.Second, func() bool {
				n, who := leaders(rs)
				if n != 1 {
					return false
				}
				leader = who
				for _, r := range rs {
					c := r.Cluster()
					if c.Leader != who || len(c.Replicas) != 3 || c.Registry != kind {
						return false
					}
				}
				return true
			})
			g, err := OpenRegistry(u, 2*time.Second, testLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			ms, err := g.Members(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != 3 || !strings.HasPrefix(ms[0].Prefix(), "serverUri=127.0.0.1:900") || ms[0].URL() == "" {
				t.Fatalf("members %+v", ms)
			}
			for _, m := range ms {
				if len(m.Sequence) != 10 {
					t.Errorf("member %+v: sequence is not ten digits", m)
				}
			}
			// The leader stops: another takes over.
			i := slices.IndexFunc(rs, func(r testReplica) bool { return r.cfg.Self.Server == leader })
			if err := rs[i].stop(); err != nil {
				t.Fatal(err)
			}
			rest := slices.Delete(slices.Clone(rs), i, i+1)
			testenv.WaitFor(t, "a new leader", 10*time.Second, func() bool {
				n, who := leaders(rest)
				return n == 1 && who != leader && len(rest[0].Cluster().Replicas) == 2
			})
			if overlap.Load() {
				t.Error("two leader terms ran at once")
			}
		})
	}
}

// A registration deleted by hand drains its replica: Run returns, the
// others elect without it.
func TestReplicaDrain(t *testing.T) {
	for _, kind := range []string{ZooKeeperKind, EtcdKind} {
		t.Run(kind, func(t *testing.T) {
			u := testRegistry(t, kind)
			var running atomic.Int32
			var overlap atomic.Bool
			rs := []testReplica{startReplica(t, u, 9101, &running, &overlap), startReplica(t, u, 9102, &running, &overlap)}
			testenv.WaitFor(t, "a leader", 10*time.Second, func() bool { n, _ := leaders(rs); return n == 1 })
			_, leader := leaders(rs)
			name := ""
			switch kind {
			case ZooKeeperKind:
				c := zkConnect(t, u.Servers, 10*time.Second, nil)
				defer c.Close()
				children, _, err := c.Children(u.MembersPath())
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range children {
					if strings.Contains(ch, leader) {
						name = u.MembersPath() + "/" + ch
					}
				}
				if err := c.Delete(name, -1); err != nil {
					t.Fatal(err)
				}
			default:
				cli := etcdTestClient(t, u.Servers)
				resp, err := cli.Delete(context.Background(), u.MembersPath()+"/serverUri="+leader, clientv3.WithPrefix())
				if err != nil || resp.Deleted != 1 {
					t.Fatalf("delete: %v, %+v", err, resp)
				}
			}
			i := slices.IndexFunc(rs, func(r testReplica) bool { return r.cfg.Self.Server == leader })
			testenv.WaitFor(t, "the other leads", 10*time.Second, func() bool {
				return rs[1-i].State() == StateActive && rs[i].State() == StateDraining
			})
			select {
			case err := <-rs[i].ended:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the drained replica's Run did not return")
			}
		})
	}
}

// ZooKeeper grants at most 20 ticks (10s on the test server): the
// leader's check of its session uses what was granted, not what it asked.
func TestReplicaGrantedTimeout(t *testing.T) {
	u := testRegistry(t, ZooKeeperKind)
	cfg := DefaultReplicaConfig()
	cfg.Registry, cfg.Timeout = u, time.Minute
	cfg.Self = Member{Server: "127.0.0.1:9301", Scheme: "http", Version: "test"}
	cfg.Logger = testLogger(t)
	r, err := NewReplica(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start(t, r.Run)
	testenv.WaitFor(t, "the replica to lead", 10*time.Second, func() bool { return r.State() == StateActive })
	r.mu.Lock()
	granted := r.granted
	r.mu.Unlock()
	if granted <= 0 || granted >= time.Minute {
		t.Errorf("granted session timeout %v, want less than the minute asked for", granted)
	}
}
