package discovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// zkReplica is the ZooKeeper side of a Replica: its session, its
// registration (an EPHEMERAL_SEQUENTIAL znode re-created under the same
// name after a session expiry, as Curator's PersistentNode does) and its
// lock node of the election (Curator's lock recipe: EPHEMERAL_SEQUENTIAL
// children of ROOT/leader named _c_<uuid>-lock-N; the lowest leads, each
// other watches its predecessor, and the lowest for the leader's address).
type zkReplica struct {
	r    *Replica
	conn *zk.Conn
	wake chan struct{} // a sync is due

	regPath, electPath       string
	regSession, electSession int64
	pred, lowest             string // the watched election nodes
	elected                  bool   // the last decision found this replica's lock node the lowest

	// Watches; nil when not set.
	regW, predW, lowW, membersW <-chan zk.Event
}

// electionPrefix is the start of a lock node's name, after the guard
// Curator writes before it.
const electionPrefix = "-lock-"

func (r *Replica) runZooKeeper(ctx context.Context) error {
	u := r.cfg.Registry
	conn, events, err := zk.Connect(u.Servers, r.cfg.Timeout, zk.WithLogger(negotiationLogger{zkLogger{r.log}, r}),
		zk.WithMaxBufferSize(maxZKBuffer))
	if err != nil {
		return fmt.Errorf("connect to zookeeper %s: %w", strings.Join(u.Servers, ","), err)
	}
	z := &zkReplica{r: r, conn: conn, wake: make(chan struct{}, 1)}
	sessionDone := make(chan struct{})
	go func() {
		defer close(sessionDone)
		for ev := range events {
			if ev.Type != zk.EventSession {
				continue
			}
			switch ev.State {
			case zk.StateDisconnected:
				// Another replica may win once the session expires:
				// stop at once, before knowing whether it will.
				r.demote("disconnected from zookeeper")
			case zk.StateExpired:
				r.demote("zookeeper session expired")
				r.log.Warn("registry: zookeeper session expired; registering again")
			case zk.StateHasSession:
				z.poke()
			}
		}
	}()
	if err = zkAuthenticate(ctx, conn, u); err == nil {
		err = z.loop(ctx)
	} else if ctx.Err() != nil {
		err = nil // stopped before the session came
	}
	r.demote("stopping")
	if z.electPath != "" && conn.State() == zk.StateHasSession {
		conn.Delete(z.electPath, -1) // resign before the session closes
	}
	conn.Close() // deregisters: the ephemeral znodes go with the session
	<-sessionDone
	return err
}

// negotiationLogger learns from go-zookeeper's log line of a new session
// the timeout the server granted (it clamps the one asked for to 2..20
// ticks), which go-zookeeper does not otherwise tell.
type negotiationLogger struct {
	zkLogger
	r *Replica
}

func (l negotiationLogger) Printf(format string, args ...any) {
	if strings.HasPrefix(format, "authenticated: id=%d, timeout=%d") && len(args) == 2 {
		if ms, ok := args[1].(int32); ok && ms > 0 {
			l.r.setGranted(time.Duration(ms) * time.Millisecond)
		}
	}
	l.zkLogger.Printf(format, args...)
}

func (z *zkReplica) poke() {
	select {
	case z.wake <- struct{}{}:
	default:
	}
}

// loop syncs with ZooKeeper whenever something changed, and checks the
// session often enough (a fifth of the granted timeout) that a leader
// notices in time that it may have lost it.
func (z *zkReplica) loop(ctx context.Context) error {
	tick := time.NewTimer(z.r.timeout() / 5)
	defer tick.Stop()
	var retry <-chan time.Time
	delay := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			z.check()
			tick.Reset(z.r.timeout() / 5)
			continue
		case <-z.wake:
		case <-retry:
		case <-z.regW:
			z.regW = nil
		case <-z.predW:
			z.predW = nil
		case <-z.lowW:
			z.lowW = nil
		case <-z.membersW:
			z.membersW = nil
		}
		retry = nil
		if err := z.sync(); err != nil {
			if errors.Is(err, errDrained) {
				z.r.drain()
				return err
			}
			delay = nextRetryDelay(delay)
			level := slog.LevelDebug
			if errors.Is(err, zk.ErrNoAuth) {
				level = slog.LevelWarn // missing or wrong credentials: say so
			}
			z.r.log.Log(ctx, level, "registry: zookeeper sync failed", slog.Any("err", err), slog.Duration("retryIn", delay))
			retry = time.After(delay)
			continue
		}
		delay = 0
	}
}

// check renews what the replica knows of its session: a call that
// succeeds proves the session lived when it was sent.
// Only a call in the session that holds the election node counts: one
// that went through a new session proves nothing of the old.
func (z *zkReplica) check() {
	sent := time.Now()
	if sid := z.conn.SessionID(); sid == z.electSession && z.conn.State() == zk.StateHasSession {
		if _, _, err := z.conn.Exists(z.r.cfg.Registry.Root); err == nil && z.conn.SessionID() == sid {
			z.r.heardAt(sent)
			if z.elected && !z.r.Leading() {
				// The watchdog stepped down (checkHeard) while the
				// session lived on, and nothing else would decide again:
				// no session event came.
				z.poke()
			}
		}
	}
	z.r.checkHeard(time.Now())
}

// sync brings the registration, the election node and the watches up to
// date with ZooKeeper, and decides who leads.
func (z *zkReplica) sync() error {
	if z.conn.State() != zk.StateHasSession {
		return nil // the session event wakes us
	}
	sid := z.conn.SessionID()
	sent := time.Now()
	u := z.r.cfg.Registry
	if err := z.ensure(u.MembersPath()); err != nil {
		return err
	}
	if err := z.ensure(u.LeaderPath()); err != nil {
		return err
	}
	if err := z.register(sid); err != nil {
		return err
	}
	if err := z.elect(sid); err != nil {
		return err
	}
	if z.conn.SessionID() != sid {
		return errors.New("the zookeeper session changed")
	}
	z.r.heardAt(sent)
	if err := z.decide(); err != nil {
		return err
	}
	if z.regW == nil {
		if _, _, w, err := z.conn.ExistsW(z.regPath); err == nil {
			z.regW = w
		} else {
			return fmt.Errorf("watch %s: %w", z.regPath, err)
		}
	}
	if z.membersW == nil {
		ms, w, err := zkMembers(z.conn, u.MembersPath())
		if err != nil {
			return err
		}
		z.r.setMembers(ms)
		z.membersW = w
	}
	return nil
}

// register creates the registration znode, or re-creates it under the
// same name in a new session. Gone in the session that created it, it was
// deleted by hand: errDrained.
func (z *zkReplica) register(sid int64) error {
	self := z.r.cfg.Self
	if z.regPath == "" {
		p, err := z.conn.Create(path.Join(z.r.cfg.Registry.MembersPath(), self.Prefix()), self.Data(),
			zk.FlagEphemeral|zk.FlagSequence, z.r.cfg.Registry.zkACL())
		if err != nil {
			return fmt.Errorf("register %s: %w", self.Server, err)
		}
		z.regPath, z.regSession = p, sid
		z.r.log.Info("registry: registered", slog.String("znode", p))
		return nil
	}
	ok, stat, err := z.conn.Exists(z.regPath)
	if err != nil {
		return fmt.Errorf("read %s: %w", z.regPath, err)
	}
	switch {
	case ok && stat.EphemeralOwner == sid:
		return nil
	case ok:
		return fmt.Errorf("%s is still held by session %#x", z.regPath, stat.EphemeralOwner)
	case z.conn.SessionID() != sid:
		return errors.New("the zookeeper session changed")
	case z.regSession == sid:
		return errDrained
	}
	if _, err := z.conn.Create(z.regPath, self.Data(), zk.FlagEphemeral, z.r.cfg.Registry.zkACL()); err != nil {
		return fmt.Errorf("register %s again: %w", z.regPath, err)
	}
	z.regSession = sid
	z.r.log.Info("registry: registered again in a new session", slog.String("znode", z.regPath))
	return nil
}

// ensure creates p and its parents, persistent, with the registry's ACL
// (zkACL).
func (z *zkReplica) ensure(p string) error {
	at := ""
	for part := range strings.SplitSeq(strings.TrimPrefix(p, "/"), "/") {
		at += "/" + part
		if _, err := z.conn.Create(at, nil, 0, z.r.cfg.Registry.zkACL()); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", at, err)
		}
	}
	return nil
}

// zkMembers reads the registrations under dir and sets a watch on its
// children.
func zkMembers(conn zkGetter, dir string) ([]Member, <-chan zk.Event, error) {
	children, _, w, err := conn.ChildrenW(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", dir, err)
	}
	got := make(map[string][]byte, len(children))
	for _, c := range children {
		data, _, err := conn.Get(path.Join(dir, c))
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", path.Join(dir, c), err)
		}
		got[c] = data
	}
	ms, _ := parseMembers(got)
	return ms, w, nil
}

// zkGetter is what reading the registrations asks of ZooKeeper.
type zkGetter interface {
	ChildrenW(path string) ([]string, *zk.Stat, <-chan zk.Event, error)
	Get(path string) ([]byte, *zk.Stat, error)
}
