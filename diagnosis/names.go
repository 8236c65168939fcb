package diagnosis

// names interns node ids: each name gets a small integer id, reused once
// nothing refers to the name any more, so that the table stays as large as
// the most nodes known at once.
type names struct {
	ids   map[string]int32
	name  []string // by id; "" when free
	refs  []int32  // by id: rows and cells that use it
	freed []int32  // free ids, reused before the table grows
}

func newNames() names { return names{ids: make(map[string]int32)} }

// id returns the id of name, if it is known.
func (n *names) id(name string) (int32, bool) {
	id, ok := n.ids[name]
	return id, ok
}

// intern returns the id of name, adding it if needed, and counts one use.
func (n *names) intern(name string) int32 {
	id, ok := n.ids[name]
	if !ok {
		if k := len(n.freed); k > 0 {
			id = n.freed[k-1]
			n.freed = n.freed[:k-1]
			n.name[id] = name
		} else {
			id = int32(len(n.name))
			n.name = append(n.name, name)
			n.refs = append(n.refs, 0)
		}
		n.ids[name] = id
	}
	n.refs[id]++
	return id
}

// release counts one use of id less and frees it at zero.
func (n *names) release(id int32) {
	n.refs[id]--
	switch {
	case n.refs[id] > 0:
	case n.refs[id] == 0:
		delete(n.ids, n.name[id])
		n.name[id] = ""
		n.freed = append(n.freed, id)
	default:
		panic("BUG: diagnosis: node id released more often than interned")
	}
}

// size is the number of ids in use or free: ids are below it.
func (n *names) size() int { return len(n.name) }
