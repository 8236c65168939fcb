package discovery

import (
	"crypto/rand"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
)

// The election of a Replica in ZooKeeper: Curator's lock recipe
// (LockInternals, StandardLockInternalsDriver).

// elect makes sure this session has its lock node under ROOT/leader.
func (z *zkReplica) elect(sid int64) error {
	if z.electPath != "" && z.electSession == sid {
		ok, _, err := z.conn.Exists(z.electPath)
		if err != nil {
			return fmt.Errorf("read %s: %w", z.electPath, err)
		}
		if ok {
			return nil
		}
	}
	var guard [16]byte
	rand.Read(guard[:])
	name := fmt.Sprintf("_c_%x-%x-%x-%x-%x%s", guard[0:4], guard[4:6], guard[6:8], guard[8:10], guard[10:], electionPrefix)
	p, err := z.conn.Create(path.Join(z.r.cfg.Registry.LeaderPath(), name), z.r.cfg.Self.Data(),
		zk.FlagEphemeral|zk.FlagSequence, z.r.cfg.Registry.zkACL())
	if err != nil {
		return fmt.Errorf("join the election: %w", err)
	}
	z.electPath, z.electSession = p, sid
	z.predW, z.lowW, z.pred, z.lowest = nil, nil, "", ""
	return nil
}

// decide reads the election: the lowest lock node leads.
func (z *zkReplica) decide() error {
	dir := z.r.cfg.Registry.LeaderPath()
	children, _, err := z.conn.Children(dir)
	if err != nil {
		return fmt.Errorf("list %s: %w", dir, err)
	}
	children = slices.DeleteFunc(children, func(c string) bool { return !strings.Contains(c, electionPrefix) })
	slices.SortFunc(children, func(a, b string) int { return strings.Compare(lockSequence(a), lockSequence(b)) })
	i := slices.Index(children, path.Base(z.electPath))
	z.elected = false
	if i < 0 {
		z.electPath = "" // deleted by hand: join again
		z.poke()
		return nil
	}
	lowest := path.Join(dir, children[0])
	if i == 0 {
		if z.conn.State() != zk.StateHasSession {
			return nil // disconnected meanwhile: the reconnect syncs again
		}
		z.r.promote()
		z.elected = true
		z.pred, z.lowest = "", ""
		return nil
	}
	z.r.demote("another replica holds the lowest lock node")
	data, _, err := z.conn.Get(lowest)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("read %s: %w", lowest, err)
	}
	z.r.setLeader(string(data))
	pred := path.Join(dir, children[i-1])
	if pred != z.pred || z.predW == nil {
		ok, _, w, err := z.conn.ExistsW(pred)
		if err != nil {
			return fmt.Errorf("watch %s: %w", pred, err)
		}
		z.pred, z.predW = pred, w
		if !ok {
			z.poke()
		}
	}
	if lowest != z.lowest || z.lowW == nil {
		ok, _, w, err := z.conn.ExistsW(lowest)
		if err != nil {
			return fmt.Errorf("watch %s: %w", lowest, err)
		}
		z.lowest, z.lowW = lowest, w
		if !ok {
			z.poke()
		}
	}
	return nil
}

// lockSequence is the counter of a lock node: the text after its last
// "-lock-", as Curator's StandardLockInternalsDriver sorts them.
func lockSequence(name string) string {
	return name[strings.LastIndex(name, electionPrefix)+len(electionPrefix):]
}
