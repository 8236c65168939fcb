package sqlstore

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/hiveserver/storetest"
)

// BenchmarkIngest measures hook events per second into each store from
// many concurrent senders (16 × GOMAXPROCS goroutines, as many HiveServers'
// hooks posting at once): each event is committed durably before Ingest
// returns. Half the events start a statement, half end one.
//
//	go test -run '^$' -bench Ingest -benchtime 20000x ./hiveserver/sqlstore/
//
// Target (issue 5): ≥ 5 000 events/s into SQLite on a 2-core machine.
func BenchmarkIngest(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchIngest(b, sqliteDSN(b)) })
	b.Run("mysql", func(b *testing.B) { benchIngest(b, mysqlDSN(b)) })
}

func benchIngest(b *testing.B, dsn string) {
	s := openStore(b, dsn)
	p, _ := storetest.OpenPicker(b, s)
	ctx := context.Background()
	eventsPerSecond(b, func(i int64) error {
		id := i / 2
		e := hiveserver.Event{
			Server:   fmt.Sprintf("hs%d.example.com:10000", id%20),
			Hook:     hiveserver.PreExec,
			QueryID:  fmt.Sprintf("hive_20240101120000_%d", id),
			QueryStr: "INSERT OVERWRITE TABLE report SELECT city, count(*) FROM events WHERE day = '2024-01-01' GROUP BY city",
			JobName:  fmt.Sprintf("report_%d", id%50),
			TimeMs:   storetest.At(time.Duration(id) * time.Millisecond),
		}
		if i%2 == 1 {
			e.Hook, e.TimeMs = hiveserver.PostExec, e.TimeMs+30000
		}
		return p.Ingest(ctx, e)
	})
	if c := p.Counters(); c.Commits > 0 {
		b.ReportMetric(float64(c.Events)/float64(c.Commits), "events/commit")
	}
}

// BenchmarkSendHTTP measures hook events per second end to end: form
// bodies POSTed over loopback HTTP (keep-alive) to SendHandler, into
// SQLite, from 16 × GOMAXPROCS concurrent clients.
//
//	go test -run '^$' -bench SendHTTP -benchtime 20000x ./hiveserver/sqlstore/
func BenchmarkSendHTTP(b *testing.B) {
	p, _ := storetest.OpenPicker(b, openStore(b, sqliteDSN(b)))
	srv := httptest.NewServer(p.SendHandler())
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	eventsPerSecond(b, func(i int64) error {
		e := storetest.Event(fmt.Sprintf("hs%d.example.com:10000", i%20), hiveserver.PreExec, fmt.Sprintf("hive_%d", i),
			fmt.Sprintf("report_%d", i%50), storetest.At(time.Duration(i)*time.Millisecond))
		resp, err := client.Post(srv.URL+hiveserver.SendPath, formType, strings.NewReader(e.Form().Encode()))
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})
}

// eventsPerSecond calls send with 1, 2, … b.N from 16 × GOMAXPROCS
// goroutines, stops at the first error and reports events/s.
func eventsPerSecond(b *testing.B, send func(i int64) error) {
	var n atomic.Int64
	b.SetParallelism(16)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := send(n.Add(1)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
