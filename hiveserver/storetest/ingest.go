package storetest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// testIngestConcurrent sends many events to a Picker at once: every event
// is stored, and a restart on the same store sees the same workload.
func testIngestConcurrent(t *testing.T, s Store) {
	p, stop := OpenPicker(t, s)
	const workers, perWorker = 16, 40
	// statement is the i-th statement of worker w, as stored once both
	// its events arrived (half of them end).
	statement := func(w, i int) hiveserver.Query {
		id := fmt.Sprintf("w%d-q%d", w, i)
		q := hiveserver.Query{Server: fmt.Sprintf("hs%d:10000", w%4), QueryID: id, Hook: hiveserver.PreExec,
			QueryStr: "SELECT '" + id + "'", JobName: fmt.Sprintf("job%d", i%3), PreTimeMs: At(time.Duration(i) * time.Second)}
		if i%2 == 0 {
			q.Hook, q.PostTimeMs = hiveserver.PostExec, q.PreTimeMs+1000
		}
		return q
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				q := statement(w, i)
				e := Event(q.Server, hiveserver.PreExec, q.QueryID, q.JobName, q.PreTimeMs)
				if err := p.Ingest(context.Background(), e); err != nil {
					t.Error(err)
					return
				}
				if q.PostTimeMs != 0 {
					e.Hook, e.TimeMs = hiveserver.PostExec, q.PostTimeMs
					if err := p.Ingest(context.Background(), e); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	var stored []hiveserver.Query
	for w := range workers {
		for i := range perWorker {
			stored = append(stored, statement(w, i))
		}
	}
	checkStored(t, s, stored)
	now := T0.Add(time.Minute)
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
	p2, _ := OpenPicker(t, s)
	if after := p2.Servers(now, nil); !reflect.DeepEqual(after, before) {
		t.Errorf("after restart\n got %+v\nwant %+v", after, before)
	}
}

// checkStored checks that s holds the rows want, and no other row that is
// open or finished with a jobName.
func checkStored(t *testing.T, s Store, want []hiveserver.Query) {
	t.Helper()
	ctx := context.Background()
	var open, finished int64
	for _, w := range want {
		q, ok, err := s.Lookup(ctx, w.Server, w.QueryID)
		if err != nil || !ok || q != w {
			t.Fatalf("stored %+v, %v, %v\nwant %+v", q, ok, err, w)
		}
		if w.Running() {
			open++
		} else if w.Finished() && w.JobName != "" {
			finished++
		}
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got int64
	for _, j := range snap.Jobs {
		got += j.Finished
	}
	if int64(len(snap.Open)) != open || got != finished {
		t.Fatalf("the store has %d open and %d finished statements, want %d and %d", len(snap.Open), got, open, finished)
	}
}

// testSendJavaBodies sends the exact bodies of a Java hook through real
// HTTP: they come out of the store byte for byte (Chinese, '+', '%', '&',
// newlines, a 4-byte emoji: utf8mb4 on MySQL).
func testSendJavaBodies(t *testing.T, s Store) {
	p, _ := OpenPicker(t, s)
	srv := httptest.NewServer(p.SendHandler()) // listens on 127.0.0.1
	defer srv.Close()
	for i, c := range HookCases(t) {
		resp, err := http.Post(srv.URL+hiveserver.SendPath, "application/x-www-form-urlencoded; charset=UTF-8", strings.NewReader(c.Body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "{}\n" {
			t.Fatalf("case %d: %d %s", i, resp.StatusCode, body)
		}
		q, ok, err := s.Lookup(context.Background(), "hs1.example.com:10000", c.QueryID)
		if !ok || err != nil || q.QueryStr != c.QueryStr || q.JobName != c.JobName || q.Hook != c.Hook {
			t.Errorf("case %d: stored %#v, %v, %v; want queryStr %q jobName %q", i, q, ok, err, c.QueryStr, c.JobName)
		}
	}
}
