//go:build unix

package namenode

import "syscall"

// openFilesLimit returns the process's soft limit on open files, 0 when
// it cannot be read.
func openFilesLimit() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur == ^uint64(0) { // RLIM_INFINITY
		return 0
	}
	return lim.Cur
}
