package discovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// RegistryTimeoutKey is the key of ReplicaConfig.Timeout. A bare number
// is milliseconds.
const RegistryTimeoutKey = "slowpeer.registry.lease.timeout"

// DefaultRegistryTimeout is the ZooKeeper session timeout, or the etcd
// lease TTL, of a Replica (slowpeer.registry.lease.timeout, as Kyuubi's
// kyuubi.ha.etcd.lease.timeout): how long a replica that died stays
// registered, and how long its leadership outlives it.
const DefaultRegistryTimeout = 10 * time.Second

// States of a Replica, as its /jmx says them (Hadoop's HAServiceState
// words).
const (
	StateActive   = "active"
	StateStandby  = "standby"
	StateDraining = "draining"
)

// ReplicaConfig is the configuration of a Replica.
type ReplicaConfig struct {
	// Registry is where to register and elect.
	Registry RegistryURL
	// Self is what to register: Server (the -advertise address), Scheme
	// and Version; the registry gives the Sequence.
	Self Member
	// Timeout is the ZooKeeper session timeout or the etcd lease TTL
	// (slowpeer.registry.lease.timeout, default DefaultRegistryTimeout;
	// etcd counts it in whole seconds, ZooKeeper clamps it to 2..20 of
	// its ticks).
	Timeout time.Duration
	// Lead is the work only the leader does. It runs while this replica
	// leads, with a context that ends the moment leadership is lost or
	// may be lost (the registry is out of reach), well before another
	// replica can win; before each write it should still ask Leading.
	// When it returns an error while leading, it is run again a second
	// later. Nil: nothing to do.
	Lead func(ctx context.Context) error
	// Logger receives registration and leadership changes; nil means
	// slog.Default().
	Logger *slog.Logger
}

// DefaultReplicaConfig returns a ReplicaConfig with Timeout
// DefaultRegistryTimeout and nothing else.
func DefaultReplicaConfig() ReplicaConfig {
	return ReplicaConfig{Timeout: DefaultRegistryTimeout}
}

// Validate returns an error naming the first broken rule, or nil.
func (c ReplicaConfig) Validate() error {
	if err := c.Registry.validate(); err != nil {
		return err
	}
	if err := c.Self.validate(); err != nil {
		return fmt.Errorf("advertised replica: %w", err)
	}
	if c.Timeout < time.Second || c.Timeout > time.Hour {
		return fmt.Errorf("registry timeout must be within 1s..1h, got %v", c.Timeout)
	}
	return nil
}

// Replica registers one service replica in ZooKeeper or etcd, follows
// the other replicas, and takes part in the election of their leader; see
// the package documentation. It is safe for concurrent use. Build it with
// NewReplica, then Run it.
type Replica struct {
	cfg     ReplicaConfig
	log     *slog.Logger
	running atomic.Bool
	calls   atomic.Int64 // etcd calls made (the tests count them: no busy loop)

	mu       sync.Mutex
	leading  bool          // this replica won the election and has not lost it
	heard    time.Time     // when the last registry call that succeeded was sent
	granted  time.Duration // the session timeout ZooKeeper granted, 0 before
	leader   string        // the leader's address, "" when unknown
	members  []Member
	draining bool
	term     *leaderTerm // the running leader work, nil when none
	lastTerm *leaderTerm // the latest term, whose end a new one waits for
}

// leaderTerm is one run of Lead.
type leaderTerm struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// errDrained ends a backend's run: the registration was deleted by hand.
var errDrained = errors.New("registration deleted")

// NewReplica returns a Replica for cfg, or the error of cfg.Validate. It
// neither connects nor starts anything: Run does.
func NewReplica(cfg ReplicaConfig) (*Replica, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("registry config: %w", err)
	}
	r := &Replica{cfg: cfg, log: cfg.Logger}
	if r.log == nil {
		r.log = slog.Default()
	}
	r.log = r.log.With("registry", cfg.Registry.String())
	return r, nil
}

// Run registers the replica and takes part in the election until ctx
// ends; then it stops the leader work, deregisters (ZooKeeper: closes
// the session; etcd: revokes the lease) and returns nil once everything
// it started has stopped. When the registration is deleted by hand (an
// operator's drain, as kyuubi-ctl delete server), it gives up the
// leadership and returns nil at once, without registering again: the
// caller then stops the service gracefully. While the registry is out of
// reach it keeps trying. Run may be called once.
func (r *Replica) Run(ctx context.Context) error {
	if r.running.Swap(true) {
		panic("BUG: discovery.Replica.Run called twice")
	}
	wctx, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		r.watchHeard(wctx)
	}()
	var err error
	switch r.cfg.Registry.Kind {
	case ZooKeeperKind:
		err = r.runZooKeeper(ctx)
	case EtcdKind:
		err = r.runEtcd(ctx)
	}
	stopWatch()
	<-watched
	r.demote("stopping")
	r.waitLead()
	if errors.Is(err, errDrained) {
		r.log.Warn("registry: this replica's registration was deleted: draining and stopping")
		return nil
	}
	return err
}

// Leading reports whether this replica leads now: it won the election and
// has heard from the registry recently enough (within two thirds of
// Timeout) that no other replica can have won since. Leader work asks it
// before each write.
func (r *Replica) Leading() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.leadingLocked(time.Now())
}

func (r *Replica) leadingLocked(now time.Time) bool {
	return r.leading && now.Before(r.heard.Add(r.timeoutLocked()*2/3))
}

// timeout is the session timeout or lease TTL in force: the one granted,
// when ZooKeeper said, else Timeout.
func (r *Replica) timeout() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.timeoutLocked()
}

func (r *Replica) timeoutLocked() time.Duration {
	if r.granted > 0 {
		return min(r.cfg.Timeout, r.granted)
	}
	return r.cfg.Timeout
}

// setGranted records the session timeout the registry granted, when it
// says.
func (r *Replica) setGranted(d time.Duration) {
	r.mu.Lock()
	r.granted = d
	r.mu.Unlock()
}

// State returns StateActive while Leading, StateDraining once the
// registration was deleted, else StateStandby.
func (r *Replica) State() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.draining:
		return StateDraining
	case r.leadingLocked(time.Now()):
		return StateActive
	}
	return StateStandby
}

// Cluster is what a replica knows of its cluster (GET /v1/cluster).
type Cluster struct {
	// Self is this replica's address.
	Self string
	// Leader is the leader's address, "" when unknown.
	Leader string
	// Replicas are the registered replicas' addresses, sorted, without
	// repeats.
	Replicas []string
	// Registry is ZooKeeperKind or EtcdKind.
	Registry string
}

// Cluster returns what the replica knows now.
func (r *Replica) Cluster() Cluster {
	r.mu.Lock()
	c := Cluster{Self: r.cfg.Self.Server, Leader: r.leader, Registry: r.cfg.Registry.Kind}
	switch {
	case r.leadingLocked(time.Now()):
		c.Leader = r.cfg.Self.Server
	case c.Leader == r.cfg.Self.Server:
		c.Leader = "" // it may have lost the election unknowingly: it does not know who leads
	}
	for _, m := range r.members {
		c.Replicas = append(c.Replicas, m.Server)
	}
	r.mu.Unlock()
	slices.Sort(c.Replicas)
	c.Replicas = slices.Compact(c.Replicas)
	if c.Replicas == nil {
		c.Replicas = []string{}
	}
	return c
}

// heardAt records that a registry call sent at sent succeeded: the
// session or lease lived then, so it lives until sent + Timeout.
func (r *Replica) heardAt(sent time.Time) {
	r.mu.Lock()
	if sent.After(r.heard) {
		r.heard = sent
	}
	r.mu.Unlock()
}

func (r *Replica) setLeader(addr string) {
	r.mu.Lock()
	r.leader = addr
	r.mu.Unlock()
}

func (r *Replica) setMembers(ms []Member) {
	r.mu.Lock()
	r.members = ms
	r.mu.Unlock()
}
