package sqlstore

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// Many concurrent Ingest calls: every event is stored, and a restart on
// the same store sees the same workload.
func TestIngestConcurrent(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		p, stop := openPicker(t, s, hiveserver.Config{})
		const workers, perWorker = 16, 40
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				server := fmt.Sprintf("hs%d:10000", w%4)
				for i := range perWorker {
					id := fmt.Sprintf("w%d-q%d", w, i)
					e := ev(server, hiveserver.PreExec, id, fmt.Sprintf("job%d", i%3), at(time.Duration(i)*time.Second))
					if err := p.Ingest(context.Background(), e); err != nil {
						t.Error(err)
						return
					}
					if i%2 == 0 { // half of them end
						e.Hook, e.TimeMs = hiveserver.PostExec, e.TimeMs+1000
						if err := p.Ingest(context.Background(), e); err != nil {
							t.Error(err)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		if n := countRows(t, s); n != workers*perWorker {
			t.Fatalf("%d rows, want %d", n, workers*perWorker)
		}
		now := t0.Add(time.Minute)
		before := p.Servers(now, nil)
		total := 0
		for _, st := range before {
			total += st.Running
		}
		if total != workers*perWorker/2 {
			t.Fatalf("running %d, want %d: %+v", total, workers*perWorker/2, before)
		}
		c := p.Counters()
		if c.Events != workers*perWorker*3/2 || c.Commits == 0 || c.Commits > c.Events {
			t.Errorf("counters %+v", c)
		}
		stop()
		p2, _ := openPicker(t, s, hiveserver.Config{})
		if after := p2.Servers(now, nil); !reflect.DeepEqual(after, before) {
			t.Errorf("after restart\n got %+v\nwant %+v", after, before)
		}
	})
}

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
				b = append(b, ev("hs:1", hiveserver.PreExec, id, "j", at(0)), ev("hs:1", hiveserver.PostExec, id, "j", at(time.Second)))
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
		p1, _ := openPicker(t, s1, hiveserver.Config{})
		p2, _ := openPicker(t, s2, hiveserver.Config{})
		ingest(t, p1, ev("hs:1", hiveserver.PreExec, "q1", "", at(0)), ev("hs:1", hiveserver.PreExec, "q2", "", at(0)))
		ingest(t, p2, ev("hs:1", hiveserver.PostExec, "q1", "", at(time.Second)))
		if err := p2.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := p1.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i, p := range []*hiveserver.Picker{p1, p2} {
			if st := p.Servers(t0, nil); len(st) != 1 || st[0].Running != 1 {
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
		p1, _ := openPicker(t, s1, hiveserver.Config{})
		p2, _ := openPicker(t, s2, hiveserver.Config{})
		const n = 300
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < n; i += 8 {
					id := fmt.Sprintf("q%d", i)
					start := ev(fmt.Sprintf("hs%d:1", i%3), hiveserver.PreExec, id, fmt.Sprintf("job%d", i%4), at(time.Duration(i)*time.Second))
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
			for _, st := range p.Servers(t0, nil) {
				if st.Running != 0 {
					t.Errorf("after refresh: %+v", st)
				}
			}
		}
	})
}
