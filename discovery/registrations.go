package discovery

import (
	"log/slog"
	"slices"
	"sync/atomic"
)

// snapshot is one read of a namespace; it is never modified.
type snapshot struct {
	servers []string                // sorted
	regs    map[string]Registration // server → its newest registration
}

// registrations is what a watcher read last, swapped whole, and whether
// it has read once. The Watcher and the EtcdWatcher embed it; its
// methods are safe for concurrent use once init has run.
type registrations struct {
	snap   atomic.Pointer[snapshot]
	synced chan struct{} // closed after the first complete read
}

func (r *registrations) init() {
	r.snap.Store(&snapshot{})
	r.synced = make(chan struct{})
}

// Servers returns the "host:port" of every server registered now, sorted.
// It does no I/O; the caller must not modify the slice.
func (r *registrations) Servers() []string { return r.snap.Load().servers }

// Registration returns what server registered (its newest entry when it
// has several), if it is registered now.
func (r *registrations) Registration(server string) (Registration, bool) {
	reg, ok := r.snap.Load().regs[server]
	return reg, ok
}

// Synced is closed once the watcher has read its namespace for the first
// time (an absent namespace counts as read: no server).
func (r *registrations) Synced() <-chan struct{} { return r.synced }

// publish makes regs what the watcher knows, marks it synced, logs the
// servers that came (registered) and went (gone), and reports whether the
// set of servers changed.
func (r *registrations) publish(regs map[string]Registration, log *slog.Logger, registered, gone string) bool {
	servers := make([]string, 0, len(regs))
	for s := range regs {
		servers = append(servers, s)
	}
	slices.Sort(servers)
	old := r.snap.Swap(&snapshot{servers: servers, regs: regs})
	select {
	case <-r.synced:
	default:
		close(r.synced)
	}
	if slices.Equal(old.servers, servers) {
		return false
	}
	for _, s := range servers {
		if _, ok := old.regs[s]; !ok {
			log.Info(registered, "server", s, "version", regs[s].Name.Version)
		}
	}
	for _, s := range old.servers {
		if _, ok := regs[s]; !ok {
			log.Info(gone, "server", s)
		}
	}
	return true
}
