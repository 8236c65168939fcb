package hiveserver_test

import (
	"testing"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/hiveserver/storetest"
)

// TestMemoryStore runs the tests every store must pass.
func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) storetest.Store { return &hiveserver.MemoryStore{} })
}
