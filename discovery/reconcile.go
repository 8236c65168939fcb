package discovery

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/go-zookeeper/zk"
)

// reconcile makes the Publisher's own znodes under its namespace exactly
// want: it lists the children (setting a watch, returned), reads them to
// find its own (ephemeral owner = its session) and what they hold,
// creates what is missing, and only then deletes what is no longer
// wanted, so the namespace never loses its last good znode during a
// switch. Other sessions' znodes are left alone. On error some znodes may
// be written: the next reconcile starts from what ZooKeeper holds.
func (p *Publisher) reconcile(want []record) (<-chan zk.Event, error) {
	children, _, changed, err := p.zk.ChildrenW(p.path)
	if errors.Is(err, zk.ErrNoNode) && len(want) > 0 {
		if err := p.createNamespace(); err != nil {
			return nil, err
		}
		children, _, changed, err = p.zk.ChildrenW(p.path)
	}
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil // nothing wanted and nothing there; watch nothing
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", p.path, err)
	}
	session := p.zk.SessionID()
	type own struct {
		child string
		data  []byte
		keep  bool
	}
	var ours []own
	var others []string
	for _, child := range children {
		data, stat, err := p.zk.Get(path.Join(p.path, child))
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path.Join(p.path, child), err)
		}
		if session != 0 && stat.EphemeralOwner == session {
			ours = append(ours, own{child: child, data: data})
		} else {
			others = append(others, child)
		}
	}
	if p.cfg.TakeOver && len(want) > 0 {
		for _, child := range others {
			if !p.leading() {
				return nil, errNotLeading
			}
			znode := path.Join(p.path, child)
			if err := p.zk.Delete(znode, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
				return nil, fmt.Errorf("take over %s: %w", znode, err)
			}
			p.log.Info("hiveserver2 publisher: took over from an earlier publisher", "znode", znode)
		}
	}
	var missing []record
	for _, r := range want {
		found := false
		for i := range ours {
			if !ours[i].keep && sameRecord(ours[i].child, ours[i].data, r.prefix, r.data) {
				ours[i].keep, found = true, true
				break
			}
		}
		if !found {
			missing = append(missing, r)
		}
	}
	for _, r := range missing {
		if !p.leading() {
			return nil, errNotLeading
		}
		created, err := p.zk.Create(path.Join(p.path, r.prefix), r.data, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			return nil, fmt.Errorf("create %s for %s: %w", path.Join(p.path, r.prefix), r.server, err)
		}
		p.log.Debug("hiveserver2 publisher: created", "znode", created)
	}
	for _, o := range ours {
		if o.keep {
			continue
		}
		znode := path.Join(p.path, o.child)
		if err := p.zk.Delete(znode, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return nil, fmt.Errorf("delete %s: %w", znode, err)
		}
		p.log.Debug("hiveserver2 publisher: deleted", "znode", znode)
	}
	return changed, nil
}

// errNotLeading stops a write of a Publisher whose Leading says no.
var errNotLeading = errors.New("not the leader")

// leading asks cfg.Leading, if set.
func (p *Publisher) leading() bool { return p.cfg.Leading == nil || p.cfg.Leading() }

// createNamespace creates the namespace and its parents, persistent and
// open to all (HiveServer2's ACL on a cluster without Kerberos), as
// HiveServer2 creates its own (creatingParentsIfNeeded).
func (p *Publisher) createNamespace() error {
	at := ""
	for part := range strings.SplitSeq(strings.TrimPrefix(p.path, "/"), "/") {
		at += "/" + part
		_, err := p.zk.Create(at, nil, 0, zk.WorldACL(zk.PermAll))
		if errors.Is(err, zk.ErrNodeExists) {
			continue
		}
		if err != nil {
			return fmt.Errorf("create %s: %w", at, err)
		}
		if at == p.path {
			p.log.Info("hiveserver2 publisher: created the namespace")
		}
	}
	return nil
}
