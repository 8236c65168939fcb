package namenode

// The connection cap and the process's limit on open files. Go raises
// the soft RLIMIT_NOFILE to the hard limit when the process starts
// (package syscall, since Go 1.19), so the soft limit read here is all
// the process may open; the systemd units set LimitNOFILE=65536. A cap
// above it would let accept fail with EMFILE, and every client, the
// heartbeats too, wait for net/http's retries.

// minSpareFiles is the fewest descriptors kept for what is not a served
// connection: the listener, the stores, the state file, the registry's
// and the replicas' connections, the one accepted connection waiting
// for a slot.
const minSpareFiles = 64

// openFilesCap returns the connection cap to serve with: configured, but
// at most three quarters of limit, the process's open-file limit, and at
// least limit − minSpareFiles below it; limit 0 (unknown) leaves it.
func openFilesCap(configured int, limit uint64) int {
	if limit == 0 {
		return configured
	}
	spare := max(limit/4, minSpareFiles)
	if limit <= spare {
		return 1
	}
	return int(min(uint64(configured), limit-spare))
}
