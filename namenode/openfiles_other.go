//go:build !unix

package namenode

// openFilesLimit returns 0: the limit is not known here.
func openFilesLimit() uint64 { return 0 }
