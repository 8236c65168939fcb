package discovery

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"
)

// fakeZK is an in-memory ZooKeeper for one session, as much of it as a
// Publisher uses: znodes with data and an ephemeral owner, sequential
// names, child watches, and a log of the writes.
type fakeZK struct {
	mu      sync.Mutex
	session int64
	nodes   map[string]fakeNode
	counter map[string]int
	watches map[string][]chan zk.Event
	writes  []string // "create /p/c" and "delete /p/c", in order
	// failCreate, when set, is returned by the create of a znode whose
	// path contains it.
	failCreate string
}

type fakeNode struct {
	data  []byte
	owner int64
}

func newFakeZK(session int64) *fakeZK {
	return &fakeZK{
		session: session,
		nodes:   map[string]fakeNode{"/": {}},
		counter: map[string]int{},
		watches: map[string][]chan zk.Event{},
	}
}

func (f *fakeZK) SessionID() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.session
}

func (f *fakeZK) childrenLocked(p string) []string {
	var out []string
	for n := range f.nodes {
		if n != "/" && path.Dir(n) == p {
			out = append(out, path.Base(n))
		}
	}
	slices.Sort(out)
	return out
}

func (f *fakeZK) ChildrenW(p string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.nodes[p]; !ok {
		return nil, nil, nil, zk.ErrNoNode
	}
	ch := make(chan zk.Event, 1)
	f.watches[p] = append(f.watches[p], ch)
	return f.childrenLocked(p), &zk.Stat{}, ch, nil
}

func (f *fakeZK) Get(p string) ([]byte, *zk.Stat, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[p]
	if !ok {
		return nil, nil, zk.ErrNoNode
	}
	return slices.Clone(n.data), &zk.Stat{EphemeralOwner: n.owner}, nil
}

func (f *fakeZK) Create(p string, data []byte, flags int32, _ []zk.ACL) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failCreate != "" && strings.Contains(p, f.failCreate) {
		return "", errors.New("injected create failure")
	}
	parent := path.Dir(p)
	if _, ok := f.nodes[parent]; !ok {
		return "", zk.ErrNoNode
	}
	if flags&zk.FlagSequence != 0 {
		p += fmt.Sprintf("%010d", f.counter[parent])
		f.counter[parent]++
	}
	if _, ok := f.nodes[p]; ok {
		return "", zk.ErrNodeExists
	}
	n := fakeNode{data: slices.Clone(data)}
	if flags&zk.FlagEphemeral != 0 {
		n.owner = f.session
	}
	f.nodes[p] = n
	f.writes = append(f.writes, "create "+p)
	f.fireLocked(parent)
	return p, nil
}

func (f *fakeZK) Delete(p string, _ int32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.nodes[p]; !ok {
		return zk.ErrNoNode
	}
	if len(f.childrenLocked(p)) > 0 {
		return zk.ErrNotEmpty
	}
	delete(f.nodes, p)
	f.writes = append(f.writes, "delete "+p)
	f.fireLocked(path.Dir(p))
	return nil
}

// put adds a znode as another client would (owner 0: persistent).
func (f *fakeZK) put(p string, data []byte, owner int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nodes[p] = fakeNode{data: data, owner: owner}
	f.fireLocked(path.Dir(p))
}

// remove deletes a znode as another client would.
func (f *fakeZK) remove(p string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.nodes, p)
	f.fireLocked(path.Dir(p))
}

func (f *fakeZK) fireLocked(parent string) {
	for _, ch := range f.watches[parent] {
		ch <- zk.Event{Type: zk.EventNodeChildrenChanged, Path: parent}
	}
	delete(f.watches, parent)
}

// takeWrites returns the writes since the last call.
func (f *fakeZK) takeWrites() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.writes
	f.writes = nil
	return w
}

// children returns the children of p with their data, "name=data".
func (f *fakeZK) children(p string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.childrenLocked(p) {
		out = append(out, c+" → "+string(f.nodes[path.Join(p, c)].data))
	}
	return out
}
