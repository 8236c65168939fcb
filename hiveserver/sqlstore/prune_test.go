package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// Prune deletes what ended (or, never ended, started) before the cut and
// the HiveServers last heard of before it; what is newer stays.
func TestPrune(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		ctx := context.Background()
		ev := func(server, id string, hook hiveserver.Hook, ms int64) hiveserver.Event {
			return hiveserver.Event{Server: server, QueryID: id, Hook: hook, JobName: "j", TimeMs: ms}
		}
		if _, err := s.Commit(ctx, []hiveserver.Event{
			ev("old:1", "done", hiveserver.PreExec, 100), ev("old:1", "done", hiveserver.PostExec, 200),
			ev("old:1", "lost", hiveserver.PreExec, 300),
			ev("new:1", "late", hiveserver.PreExec, 400), ev("new:1", "late", hiveserver.PostExec, 2000),
			ev("new:1", "open", hiveserver.PreExec, 1500),
		}); err != nil {
			t.Fatal(err)
		}
		n, err := s.Prune(ctx, time.UnixMilli(1000))
		if err != nil {
			t.Fatal(err)
		}
		if n != 3 { // two statements and one server
			t.Errorf("pruned %d rows, want 3", n)
		}
		for id, want := range map[string]bool{"done": false, "lost": false} {
			if _, ok, _ := s.Lookup(ctx, "old:1", id); ok != want {
				t.Errorf("old:1 %s kept %v, want %v", id, ok, want)
			}
		}
		for _, id := range []string{"late", "open"} {
			if _, ok, _ := s.Lookup(ctx, "new:1", id); !ok {
				t.Errorf("new:1 %s pruned", id)
			}
		}
		snap, err := s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := snap.Servers["old:1"]; ok || len(snap.Servers) != 1 {
			t.Errorf("servers after prune: %v", snap.Servers)
		}
	})
}
