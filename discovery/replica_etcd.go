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
	// lost is the lease of a term that ended as lost (no keep-alive
	// answered in its TTL), which etcd may still hold, with the
	// election key on it: an etcd that restarts extends every lease by
	// its TTL. The next term revokes it, so that its election key does
	// not hold up the next election that long.
	lost clientv3.LeaseID
}

// errLeaseLost ends an etcd term.
var errLeaseLost = errors.New("etcd lease lost")

// newEtcdClient connects to the registry's etcd servers (lazily: calls
// wait for it) as the URL's user, if any, over TLS when the URL says.
func newEtcdClient(u RegistryURL) (*clientv3.Client, error) {
	return etcdDial{servers: u.Servers, user: u.User, password: u.Password, tls: u.TLS}.connect()
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
// registration is deleted by hand (errDrained), or etcd fails. Every
// call it makes is bounded (call), so the loop keeps its pace while etcd
// is away: a keep-alive every fifth of the timeout, nothing in between.
func (e *etcdReplica) term(ctx context.Context) (err error) {
	r, cli, u := e.r, e.cli, e.r.cfg.Registry
	sent := time.Now()
	gctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	lease, err := cli.Grant(gctx, e.leaseTTL())
	cancel()
	e.r.calls.Add(1)
	if err != nil {
		return fmt.Errorf("grant a lease: %w", err)
	}
	r.heardAt(sent) // a new lease lives at least until sent + TTL
	if e.lost != 0 {
		rctx, cancel := e.call(ctx)
		e.cli.Revoke(rctx, e.lost) // gone already, most often
		cancel()
		e.lost = 0
	}
	sess, err := concurrency.NewSession(cli, concurrency.WithLease(lease.ID))
	if err != nil {
		return fmt.Errorf("keep the lease alive: %w", err)
	}
	tctx, stop := context.WithCancel(ctx)
	won := make(chan error, 1)
	campaigning := false
	defer func() {
		r.demote(fmt.Sprintf("etcd term ended: %v", err))
		stop()
		if campaigning {
			<-won
		}
		sess.Orphan()
		if errors.Is(err, errLeaseLost) {
			e.lost = lease.ID
			return
		}
		// Deregister (and resign) by revoking the lease.
		rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if _, rerr := cli.Revoke(rctx, lease.ID); rerr != nil && !errors.Is(rerr, rpctypes.ErrLeaseNotFound) {
			r.log.Warn("registry: revoke the etcd lease", slog.Any("err", rerr))
		}
	}()
	if err := e.register(tctx, sess); err != nil {
		return err
	}
	members := cli.Watch(tctx, u.MembersPath()+"/", clientv3.WithPrefix())
	leaders := cli.Watch(tctx, u.LeaderPath()+"/", clientv3.WithPrefix())
	elect := concurrency.NewElection(sess, u.LeaderPath())
	campaigning = true
	go func() { won <- elect.Campaign(tctx, r.cfg.Self.Server) }()
	if err := e.readMembers(tctx); err != nil {
		return err
	}
	e.readLeader(tctx, elect)
	tick := time.NewTicker(r.cfg.Timeout / 5)
	defer tick.Stop()
	elected := false // the campaign was won: the election key is this lease's while it lives
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sess.Done():
			return errLeaseLost
		case err := <-won:
			campaigning, won = false, nil // won once: never read again
			if err != nil {
				return fmt.Errorf("campaign on %s: %w", u.LeaderPath(), err)
			}
			if err := e.confirm(tctx, elect.Key(), lease.ID); err != nil {
				return err
			}
			elected = true
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
			err := e.keepAlive(tctx, lease.ID)
			if errors.Is(err, errLeaseLost) {
				return err
			}
			r.checkHeard(time.Now())
			if err == nil && elected && !r.Leading() {
				if err := e.lead(tctx, elect.Key(), lease.ID); err != nil {
					return err
				}
			}
		}
	}
}

// call bounds one etcd call of a term to a third of the timeout, so that
// a registry that does not answer (etcd down, a partition: the client
// waits for a connection) never holds the loop.
func (e *etcdReplica) call(ctx context.Context) (context.Context, context.CancelFunc) {
	e.r.calls.Add(1)
	return context.WithTimeout(ctx, e.r.cfg.Timeout/3)
}

// keepAlive renews the lease once. Its success proves the lease lives
// until its sending plus the TTL: only this and a grant count as hearing
// from the registry. A lease etcd no longer has is errLeaseLost; other
// failures (no answer) are returned as they are and change nothing.
func (e *etcdReplica) keepAlive(ctx context.Context, id clientv3.LeaseID) error {
	sent := time.Now()
	kctx, cancel := e.call(ctx)
	defer cancel()
	_, err := e.cli.KeepAliveOnce(kctx, id)
	switch {
	case err == nil:
		e.r.heardAt(sent)
	case errors.Is(err, rpctypes.ErrLeaseNotFound):
		return errLeaseLost
	}
	return err
}

// confirm checks, after the campaign was won, that the election key is
// still this lease's, and renews the lease, so that the leadership starts
// with a fresh answer of the registry.
func (e *etcdReplica) confirm(ctx context.Context, key string, id clientv3.LeaseID) error {
	gctx, cancel := e.call(ctx)
	resp, err := e.cli.Get(gctx, key)
	cancel()
	if err != nil {
		return fmt.Errorf("read %s: %w", key, err)
	}
	if len(resp.Kvs) == 0 || clientv3.LeaseID(resp.Kvs[0].Lease) != id {
		return errLeaseLost
	}
	if err := e.keepAlive(ctx, id); err != nil {
		return fmt.Errorf("renew the lease after winning: %w", err)
	}
	return nil
}

// lead takes the leadership up again after the watchdog stepped down
// (checkHeard: etcd did not answer for two thirds of the timeout) while
// the lease lived on: the election key is still this lease's, so no
// other replica can have won, and nothing else would promote again
// (the campaign was won once). It confirms the key and renews the lease
// first; a lease or key lost ends the term (errLeaseLost), and an etcd
// that does not answer leaves it to the next tick.
func (e *etcdReplica) lead(ctx context.Context, key string, id clientv3.LeaseID) error {
	err := e.confirm(ctx, key, id)
	switch {
	case errors.Is(err, errLeaseLost):
		return err
	case err != nil:
		return nil
	}
	e.r.log.Info("registry: etcd answers again and the election key is still this lease's")
	e.r.promote()
	return nil
}

// register puts the registration on the session's lease: the first time
// under a new counter, taken under the lock, later under the same key.
func (e *etcdReplica) register(ctx context.Context, sess *concurrency.Session) error {
	cli, u, self := e.cli, e.r.cfg.Registry, e.r.cfg.Self
	dir := u.MembersPath()
	e.r.calls.Add(1)
	ctx, cancel := context.WithTimeout(ctx, 2*e.r.cfg.Timeout)
	defer cancel()
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
	if err := lock.Lock(ctx); err != nil {
		return fmt.Errorf("lock %s/lock: %w", dir, err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.r.cfg.Timeout)
		lock.Unlock(uctx) // else the lock goes with the lease
		cancel()
	}()
	prefix := dir + "/" + self.Prefix()
	resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
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
	if _, err := cli.Put(ctx, key, string(self.Data()), clientv3.WithLease(sess.Lease())); err != nil {
		return fmt.Errorf("register %s: %w", key, err)
	}
	e.key = key
	e.r.log.Info("registry: registered", slog.String("key", key))
	return nil
}

// deleted tells why the registration went: with the lease still alive
// it was deleted by hand (errDrained), else the lease expired.
func (e *etcdReplica) deleted(ctx context.Context, id clientv3.LeaseID) error {
	ctx, cancel := e.call(ctx)
	defer cancel()
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
	ctx, cancel := e.call(ctx)
	defer cancel()
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
	ctx, cancel := e.call(ctx)
	defer cancel()
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
