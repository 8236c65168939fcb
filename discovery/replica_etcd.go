package discovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
)

// etcdReplica is the etcd side of a Replica, as Kyuubi's
// EtcdDiscoveryClient registers: the key ROOT/namenodes/<name> with the
// value HOST:PORT on a lease of Timeout kept alive, the sequence emulated
// under the lock ROOT/namenodes/lock (the highest counter under the exact
// name prefix, plus one), and the election concurrency.Election on
// ROOT/leader on the same lease. A lease that expired (the process hung
// longer than its TTL) starts a new term: a new lease, the same key.
type etcdReplica struct {
	r   *Replica
	cli *clientv3.Client
	key string // the registration's key, once registered
}

// errLeaseLost ends an etcd term.
var errLeaseLost = errors.New("etcd lease lost")

// newEtcdClient connects to the registry's etcd servers (lazily: calls
// wait for it) as the URL's user, if any.
func newEtcdClient(u RegistryURL) (*clientv3.Client, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: u.Servers, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		Username: u.User, Password: u.Password})
	if err != nil {
		return nil, fmt.Errorf("connect to etcd %s: %w", strings.Join(u.Servers, ","), err)
	}
	return cli, nil
}

func (r *Replica) runEtcd(ctx context.Context) error {
	cli, err := newEtcdClient(r.cfg.Registry)
	if err != nil {
		return err
	}
	defer cli.Close()
	e := &etcdReplica{r: r, cli: cli}
	var delay time.Duration
	for {
		err := e.term(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, errDrained):
			return err
		case errors.Is(err, errLeaseLost):
			r.log.Warn("registry: etcd lease lost; registering again on a new one")
			delay = 0
		default:
			delay = nextRetryDelay(delay)
			r.log.Warn("registry: etcd trouble; will retry", slog.Any("err", err), slog.Duration("retryIn", delay))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
	}
}

// leaseTTL is Timeout in whole seconds, rounded up.
func (e *etcdReplica) leaseTTL() int64 {
	return int64(math.Ceil(e.r.cfg.Timeout.Seconds()))
}

// term runs one lease: grant, register, campaign, follow, until ctx
// ends (nil: the lease is revoked), the lease is lost (errLeaseLost), the
// registration is deleted by hand (errDrained), or etcd fails.
func (e *etcdReplica) term(ctx context.Context) (err error) {
	r, cli, u := e.r, e.cli, e.r.cfg.Registry
	sent := time.Now()
	gctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	lease, err := cli.Grant(gctx, e.leaseTTL())
	cancel()
	if err != nil {
		return fmt.Errorf("grant a lease: %w", err)
	}
	r.heardAt(sent)
	sess, err := concurrency.NewSession(cli, concurrency.WithLease(lease.ID))
	if err != nil {
		return fmt.Errorf("keep the lease alive: %w", err)
	}
	tctx, stop := context.WithCancel(ctx)
	won := make(chan error, 1)
	defer func() {
		r.demote(fmt.Sprintf("etcd term ended: %v", err))
		stop()
		<-won
		if errors.Is(err, errLeaseLost) {
			sess.Orphan()
			return
		}
		// Deregister (and resign) by revoking the lease.
		rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		sess.Orphan()
		if _, rerr := cli.Revoke(rctx, lease.ID); rerr != nil && !errors.Is(rerr, rpctypes.ErrLeaseNotFound) {
			r.log.Warn("registry: revoke the etcd lease", slog.Any("err", rerr))
		}
	}()
	if err := e.register(tctx, sess); err != nil {
		won <- nil
		return err
	}
	members := cli.Watch(tctx, u.MembersPath()+"/", clientv3.WithPrefix())
	leaders := cli.Watch(tctx, u.LeaderPath()+"/", clientv3.WithPrefix())
	elect := concurrency.NewElection(sess, u.LeaderPath())
	go func() { won <- elect.Campaign(tctx, r.cfg.Self.Server) }()
	if err := e.readMembers(tctx); err != nil {
		return err
	}
	e.readLeader(tctx, elect)
	tick := time.NewTicker(r.cfg.Timeout / 5)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sess.Done():
			return errLeaseLost
		case err := <-won:
			won <- nil // for the deferred wait
			if err != nil {
				return fmt.Errorf("campaign on %s: %w", u.LeaderPath(), err)
			}
			sent := time.Now()
			resp, err := cli.Get(tctx, elect.Key())
			if err != nil {
				return fmt.Errorf("read %s: %w", elect.Key(), err)
			}
			if len(resp.Kvs) == 0 || clientv3.LeaseID(resp.Kvs[0].Lease) != lease.ID {
				return errLeaseLost
			}
			r.heardAt(sent)
			r.promote()
		case wr := <-members:
			if err := wr.Err(); err != nil {
				return fmt.Errorf("watch %s: %w", u.MembersPath(), err)
			}
			for _, ev := range wr.Events {
				if ev.Type == clientv3.EventTypeDelete && string(ev.Kv.Key) == e.key {
					return e.deleted(tctx, lease.ID)
				}
			}
			if err := e.readMembers(tctx); err != nil {
				return err
			}
		case wr := <-leaders:
			if err := wr.Err(); err != nil {
				return fmt.Errorf("watch %s: %w", u.LeaderPath(), err)
			}
			e.readLeader(tctx, elect)
		case <-tick.C:
			sent := time.Now()
			kctx, cancel := context.WithTimeout(tctx, r.cfg.Timeout/3)
			_, err := cli.KeepAliveOnce(kctx, lease.ID)
			cancel()
			switch {
			case err == nil:
				r.heardAt(sent)
			case errors.Is(err, rpctypes.ErrLeaseNotFound):
				return errLeaseLost
			}
			r.checkHeard(time.Now())
		}
	}
}

// register puts the registration on the session's lease: the first time
// under a new counter, taken under the lock, later under the same key.
func (e *etcdReplica) register(ctx context.Context, sess *concurrency.Session) error {
	cli, u, self := e.cli, e.r.cfg.Registry, e.r.cfg.Self
	dir := u.MembersPath()
	// Kyuubi's create(path, PERSISTENT): the key holds its own name.
	if _, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(dir), "=", 0)).
		Then(clientv3.OpPut(dir, dir)).Commit(); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if e.key != "" {
		if _, err := cli.Put(ctx, e.key, string(self.Data()), clientv3.WithLease(sess.Lease())); err != nil {
			return fmt.Errorf("register %s again: %w", e.key, err)
		}
		e.r.log.Info("registry: registered again on a new lease", slog.String("key", e.key))
		return nil
	}
	lock := concurrency.NewMutex(sess, dir+"/lock")
	lctx, cancel := context.WithTimeout(ctx, 2*e.r.cfg.Timeout)
	defer cancel()
	if err := lock.Lock(lctx); err != nil {
		return fmt.Errorf("lock %s/lock: %w", dir, err)
	}
	defer lock.Unlock(context.WithoutCancel(ctx))
	prefix := dir + "/" + self.Prefix()
	resp, err := cli.Get(lctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return fmt.Errorf("read %s: %w", prefix, err)
	}
	seq := int64(0)
	for _, kv := range resp.Kvs {
		if n, err := strconv.ParseInt(strings.TrimPrefix(string(kv.Key), prefix), 10, 32); err == nil && n >= seq {
			seq = n + 1
		}
	}
	key := fmt.Sprintf("%s%010d", prefix, seq)
	if _, err := cli.Put(lctx, key, string(self.Data()), clientv3.WithLease(sess.Lease())); err != nil {
		return fmt.Errorf("register %s: %w", key, err)
	}
	e.key = key
	e.r.log.Info("registry: registered", slog.String("key", key))
	return nil
}

// deleted tells why the registration went: with the lease still alive
// it was deleted by hand (errDrained), else the lease expired.
func (e *etcdReplica) deleted(ctx context.Context, id clientv3.LeaseID) error {
	resp, err := e.cli.TimeToLive(ctx, id)
	if err != nil {
		return fmt.Errorf("read the lease: %w", err)
	}
	if resp.TTL > 0 {
		e.r.drain()
		return errDrained
	}
	return errLeaseLost
}

func (e *etcdReplica) readMembers(ctx context.Context) error {
	ms, err := etcdMembers(ctx, e.cli, e.r.cfg.Registry.MembersPath())
	if err != nil {
		return err
	}
	e.r.setMembers(ms)
	return nil
}

// readLeader asks who leads; it keeps the last answer when etcd does not
// say.
func (e *etcdReplica) readLeader(ctx context.Context, elect *concurrency.Election) {
	resp, err := elect.Leader(ctx)
	switch {
	case errors.Is(err, concurrency.ErrElectionNoLeader):
		e.r.setLeader("")
	case err == nil && len(resp.Kvs) > 0:
		if !e.r.Leading() {
			e.r.setLeader(string(resp.Kvs[0].Value))
		}
	}
}

// etcdMembers reads the registrations under dir: the keys dir/<name>,
// without the lock keys and anything deeper (Kyuubi's getChildren, with
// the trailing slash).
func etcdMembers(ctx context.Context, cli *clientv3.Client, dir string) ([]Member, error) {
	resp, err := cli.Get(ctx, dir+"/", clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	got := map[string][]byte{}
	for _, kv := range resp.Kvs {
		name := strings.TrimPrefix(string(kv.Key), dir+"/")
		if name == "" || strings.Contains(name, "/") || strings.HasPrefix(name, "lock") {
			continue
		}
		got[name] = kv.Value
	}
	ms, _ := parseMembers(got)
	return ms, nil
}
