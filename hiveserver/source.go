package hiveserver

import "slices"

// Source tells which HiveServers exist: a registry such as ZooKeeper, where
// HiveServer2 registers itself, or a static list. A Picker knows the union
// of its sources and the HiveServers that sent events.
type Source interface {
	// Servers returns the "host:port" of every HiveServer the source
	// knows now, in any order. It is called at every pick and list, so it
	// must be cheap and safe for concurrent use and must not wait for I/O:
	// a watching source returns its latest snapshot. The caller does not
	// modify or keep the slice.
	Servers() []string
}

// Static is a Source that always names the same HiveServers (the
// -hiveservers flag).
type Static []string

// Servers returns s.
func (s Static) Servers() []string { return s }

// known reports whether one of the Picker's sources names server now.
func (p *Picker) known(server string) bool {
	for _, src := range p.sources {
		if slices.Contains(src.Servers(), server) {
			return true
		}
	}
	return false
}
