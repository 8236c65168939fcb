package hiveserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// Many concurrent Ingest calls: every event is stored, and a restart on
// the same store sees the same workload.
func TestIngestConcurrent(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		p := openPicker(t, s, Config{})
		const workers, perWorker = 16, 40
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				server := fmt.Sprintf("hs%d:10000", w%4)
				for i := range perWorker {
					id := fmt.Sprintf("w%d-q%d", w, i)
					e := ev(server, PreExec, id, fmt.Sprintf("job%d", i%3), at(time.Duration(i)*time.Second))
					if err := p.Ingest(context.Background(), e); err != nil {
						t.Error(err)
						return
					}
					if i%2 == 0 { // half of them end
						e.Hook, e.TimeMs = PostExec, e.TimeMs+1000
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
		p.Close()
		p2 := openPicker(t, s, Config{})
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

// A batch shares one transaction; when it fails, each event is tried
// alone, so one bad event fails alone and the workload has the others.
func TestCommitBatch(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		if _, err := s.db.ExecContext(context.Background(), poison[s.d.name]); err != nil {
			t.Fatal(err)
		}
		p, err := newPicker(context.Background(), s, Config{
			QueryTimeout: time.Hour, MinRemaining: time.Second, DefaultCost: time.Minute, ServerExpiry: time.Hour,
			Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		var batch []*request
		for _, id := range []string{"a", "b", "c"} {
			batch = append(batch, &request{ev: ev("hs:1", PreExec, id, "", at(0)), done: make(chan error, 1)})
		}
		p.commitBatch(batch)
		for _, r := range batch {
			if err := <-r.done; err != nil {
				t.Fatal(err)
			}
		}
		if c := p.Counters(); c.Commits != 1 || c.Events != 3 {
			t.Fatalf("one batch of three: %+v", c)
		}
		batch = batch[:0]
		for _, id := range []string{"d", "poison", "e"} {
			batch = append(batch, &request{ev: ev("hs:1", PreExec, id, "", at(0)), done: make(chan error, 1)})
		}
		p.commitBatch(batch)
		for i, want := range []string{"", "poisoned", ""} {
			err := <-batch[i].done
			if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
				t.Errorf("event %d: %v, want %q", i, err, want)
			}
		}
		if st := p.Servers(t0, nil); len(st) != 1 || st[0].Running != 5 {
			t.Errorf("workload %+v, want 5 running", st)
		}
		if n := countRows(t, s); n != 5 {
			t.Errorf("%d rows, want 5", n)
		}
	})
}

func TestIngestRefuses(t *testing.T) {
	s := openStore(t, sqliteDSN(t))
	p := openPicker(t, s, Config{})
	bad := ev("hs:1", "START", "q", "", at(0))
	if err := p.Ingest(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "field hook") {
		t.Errorf("invalid event: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Ingest(ctx, ev("hs:1", PreExec, "q", "", at(0))); !errors.Is(err, context.Canceled) {
		// The queue has room, so the event may have gone in; either way
		// the caller learns nothing was promised.
		if err != nil {
			t.Errorf("cancelled context: %v", err)
		}
	}
	p.Close()
	if err := p.Ingest(context.Background(), ev("hs:1", PreExec, "q2", "", at(0))); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if err := p.Refresh(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Refresh after Close: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// Two service replicas on one store: the second sees the first's events
// after a Refresh.
func TestRefreshSharedStore(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s1, s2 := openStore(t, dsn), openStore(t, dsn)
		p1, p2 := openPicker(t, s1, Config{}), openPicker(t, s2, Config{})
		ingest(t, p1, ev("hs:1", PreExec, "q1", "", at(0)), ev("hs:1", PreExec, "q2", "", at(0)))
		ingest(t, p2, ev("hs:1", PostExec, "q1", "", at(time.Second)))
		if err := p2.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := p1.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i, p := range []*Picker{p1, p2} {
			if st := p.Servers(t0, nil); len(st) != 1 || st[0].Running != 1 {
				t.Errorf("replica %d: %+v, want q2 alone running", i+1, st)
			}
		}
	})
}

// With RefreshInterval a replica reloads the shared store by itself.
func TestRefreshInterval(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s1, s2 := openStore(t, dsn), openStore(t, dsn)
		p1, p2 := openPicker(t, s1, Config{}), openPicker(t, s2, Config{RefreshInterval: 20 * time.Millisecond})
		ingest(t, p1, ev("hs:1", PreExec, "q1", "", at(0)))
		deadline := time.Now().Add(10 * time.Second)
		for {
			if st := p2.Servers(t0, nil); len(st) == 1 && st[0].Running == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after 10s the replica still shows %+v", p2.Servers(t0, nil))
			}
			time.Sleep(10 * time.Millisecond) // poll interval
		}
		if st := p1.Servers(t0, nil); len(st) != 1 || st[0].Running != 1 {
			t.Fatalf("the writer shows %+v", st)
		}
	})
	if err := (Config{QueryTimeout: time.Hour, MinRemaining: time.Second, DefaultCost: time.Second,
		ServerExpiry: time.Hour, RefreshInterval: -time.Second}).Validate(); err == nil {
		t.Fatal("a negative RefreshInterval is valid")
	}
}

// Two service replicas write the same statements at once (one gets the
// starts, the other the ends, in any order): no event is lost, and the
// job history still agrees with the rows. On MySQL this is row locks,
// deadlocks and duplicate keys retried; on SQLite, BEGIN IMMEDIATE.
func TestReplicasShareStore(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s1, s2 := openStore(t, dsn), openStore(t, dsn)
		p1, p2 := openPicker(t, s1, Config{}), openPicker(t, s2, Config{})
		const n = 300
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < n; i += 8 {
					id := fmt.Sprintf("q%d", i)
					start := ev(fmt.Sprintf("hs%d:1", i%3), PreExec, id, fmt.Sprintf("job%d", i%4), at(time.Duration(i)*time.Second))
					end := start
					end.Hook, end.TimeMs = PostExec, start.TimeMs+int64(i%7)*1000
					// The start and the end race to the two replicas.
					var race sync.WaitGroup
					for _, x := range []struct {
						p *Picker
						e Event
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
		for _, p := range []*Picker{p1, p2} {
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
