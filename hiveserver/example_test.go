package hiveserver_test

import (
	"context"
	"fmt"
	"log"
	"net/url"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// A Hive hook URL-encodes queryStr before the form encoding, so a "+" of
// the statement arrives as %252B and a space as %2B.
func ExampleParseEvent() {
	body := "server=hs1%3A10000&hook=PRE_EXEC_HOOK&queryId=hive_1" +
		"&queryStr=SELECT%2B1%252B1%2BAS%2B%25E7%25BB%2593%25E6%259E%259C" +
		"&jobName=daily&timestamp=1704110400000"
	form, err := url.ParseQuery(body) // what http.Request.ParseForm does
	if err != nil {
		log.Fatal(err)
	}
	e, err := hiveserver.ParseEvent(form)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s %q %s %d\n", e.Server, e.Hook, e.QueryStr, e.JobName, e.TimeMs)
	// Output: hs1:10000 PRE_EXEC_HOOK "SELECT 1+1 AS 结果" daily 1704110400000
}

func ExamplePicker_Pick() {
	ctx, stop := context.WithCancel(context.Background())
	// A MemoryStore forgets the workload at exit; sqlstore.Open keeps it
	// in SQLite or MySQL.
	store := &hiveserver.MemoryStore{}
	cfg := hiveserver.DefaultConfig()
	cfg.Servers = []string{"hs1:10000", "hs2:10000", "hs3:10000"}
	picker, err := hiveserver.New(cfg, store)
	if err != nil {
		log.Fatal(err)
	}
	if err := picker.Refresh(ctx); err != nil { // load what the store holds
		log.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- picker.Run(ctx) }() // commits what Ingest receives
	defer func() {
		stop()
		if err := <-ran; err != nil {
			log.Fatal(err)
		}
	}()

	now := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, server := range []string{"hs1:10000", "hs1:10000", "hs2:10000"} {
		err := picker.Ingest(ctx, hiveserver.Event{Server: server, Hook: hiveserver.PreExec,
			QueryID: fmt.Sprint("q", now.UnixNano()), JobName: "report", TimeMs: now.UnixMilli()})
		if err != nil {
			log.Fatal(err)
		}
		now = now.Add(time.Second)
	}
	slowHosts := []string{"hs3"} // hs3 is reported slow by its DataNode peers
	for _, s := range picker.Servers(now, slowHosts) {
		fmt.Printf("%s running %d load %gs slow %v\n", s.Server, s.Running, s.LoadSeconds, s.SlowHost)
	}
	best, err := picker.Pick(now, slowHosts)
	fmt.Println("pick:", best.Server, err)
	// Output:
	// hs1:10000 running 2 load 120s slow false
	// hs2:10000 running 1 load 60s slow false
	// hs3:10000 running 0 load 0s slow true
	// pick: hs2:10000 <nil>
}
