package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/hiveserver/storetest"
)

// poison makes the store refuse one queryId, as a database error would.
var poison = map[string]string{
	"sqlite": `CREATE TRIGGER poison BEFORE INSERT ON hive_queries WHEN NEW.queryId = 'poison'
		BEGIN SELECT RAISE(ABORT, 'poisoned'); END`,
	"mysql": `CREATE TRIGGER poison BEFORE INSERT ON hive_queries FOR EACH ROW
		BEGIN IF NEW.queryId = 'poison' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'poisoned'; END IF; END`,
}

// A batch is one transaction: when one event of it fails, none of it is
// stored, and the events alone are.
func TestCommitAtomic(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		ctx := context.Background()
		if _, err := s.db.ExecContext(ctx, poison[s.d.name]); err != nil {
			t.Fatal(err)
		}
		batch := func(ids ...string) []hiveserver.Event {
			var b []hiveserver.Event
			for _, id := range ids {
				b = append(b, storetest.Event("hs:1", hiveserver.PreExec, id, "j", storetest.At(0)), storetest.Event("hs:1", hiveserver.PostExec, id, "j", storetest.At(time.Second)))
			}
			return b
		}
		if _, err := s.Commit(ctx, batch("a", "poison", "b")); err == nil || !strings.Contains(err.Error(), "poisoned") {
			t.Fatalf("a batch with a refused event: %v", err)
		}
		if n := countRows(t, s); n != 0 {
			t.Fatalf("%d rows of a failed batch stored", n)
		}
		for _, id := range []string{"a", "b"} {
			if _, err := s.Commit(ctx, batch(id)); err != nil {
				t.Fatal(err)
			}
		}
		if n, jobs := countRows(t, s), loadSorted(t, s).Jobs; n != 2 || jobs["j"] != (hiveserver.JobTotals{Finished: 2, TotalMs: 2000}) {
			t.Fatalf("%d rows, jobs %v; want a and b, finished", n, jobs)
		}
	})
}

// Two service replicas on one store: the second sees the first's events
// after a Refresh.
func TestRefreshSharedStore(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s1, s2 := openStore(t, dsn), openStore(t, dsn)
		p1, _ := storetest.OpenPicker(t, s1)
		p2, _ := storetest.OpenPicker(t, s2)
		storetest.Ingest(t, p1, storetest.Event("hs:1", hiveserver.PreExec, "q1", "", storetest.At(0)), storetest.Event("hs:1", hiveserver.PreExec, "q2", "", storetest.At(0)))
		storetest.Ingest(t, p2, storetest.Event("hs:1", hiveserver.PostExec, "q1", "", storetest.At(time.Second)))
		if err := p2.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := p1.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i, p := range []*hiveserver.Picker{p1, p2} {
			if st := p.Servers(storetest.T0, nil); len(st) != 1 || st[0].Running != 1 {
				t.Errorf("replica %d: %+v, want q2 alone running", i+1, st)
			}
		}
	})
}

// Two service replicas write the same statements at once (one gets the
// starts, the other the ends, in any order): no event is lost, and the
// job history still agrees with the rows. On MySQL this is row locks,
// deadlocks and duplicate keys retried; on SQLite, BEGIN IMMEDIATE.
func TestReplicasShareStore(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s1, s2 := openStore(t, dsn), openStore(t, dsn)
		p1, _ := storetest.OpenPicker(t, s1)
		p2, _ := storetest.OpenPicker(t, s2)
		const n = 300
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < n; i += 8 {
					id := fmt.Sprintf("q%d", i)
					start := storetest.Event(fmt.Sprintf("hs%d:1", i%3), hiveserver.PreExec, id, fmt.Sprintf("job%d", i%4), storetest.At(time.Duration(i)*time.Second))
					end := start
					end.Hook, end.TimeMs = hiveserver.PostExec, start.TimeMs+int64(i%7)*1000
					// The start and the end race to the two replicas.
					var race sync.WaitGroup
					for _, x := range []struct {
						p *hiveserver.Picker
						e hiveserver.Event
					}{{p1, start}, {p2, end}, {p2, start}, {p1, end}} {
						race.Go(func() {
							if err := x.p.Ingest(context.Background(), x.e); err != nil {
								t.Error(err)
							}
						})
					}
					race.Wait()
				}
			})
		}
		wg.Wait()
		var incomplete int
		if err := s1.db.QueryRowContext(context.Background(),
			`SELECT COUNT(*) FROM hive_queries WHERE preTime IS NULL OR postTime IS NULL`).Scan(&incomplete); err != nil {
			t.Fatal(err)
		}
		if rows := countRows(t, s1); rows != n || incomplete != 0 {
			t.Fatalf("%d rows, %d incomplete; want %d complete", rows, incomplete, n)
		}
		checkStoreHistory(t, s1)
		for _, p := range []*hiveserver.Picker{p1, p2} {
			if err := p.Refresh(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, st := range p.Servers(storetest.T0, nil) {
				if st.Running != 0 {
					t.Errorf("after refresh: %+v", st)
				}
			}
		}
	})
}
