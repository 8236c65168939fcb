package hiveserver

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkPick measures a pick among 100 HiveServers running 10 000
// statements of 500 jobs, 5 slow hosts excluded. Target (issue 5): < 1 ms.
//
//	go test -run '^$' -bench Pick ./hiveserver/
func BenchmarkPick(b *testing.B) {
	p := benchPicker(b, 100, 10000)
	now := t0.Add(time.Hour)
	slow := []string{"hs3.example.com", "hs17.example.com", "hs42.example.com", "hs60.example.com", "hs99.example.com"}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Pick(now, slow); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPicker returns a Picker whose workload holds servers HiveServers
// with running statements in all, started in the last hour, of 500 jobs
// with history. A pick never reads the store.
func benchPicker(b *testing.B, servers, running int) *Picker {
	p := loadPicker(b, &MemoryStore{}, Config{})
	snap := Snapshot{Jobs: map[string]JobTotals{}, Servers: map[string]int64{}}
	for j := range 500 {
		snap.Jobs[fmt.Sprintf("job%d", j)] = JobTotals{Finished: 10, TotalMs: int64(j+1) * 60000}
	}
	for s := range servers {
		snap.Servers[fmt.Sprintf("hs%d.example.com:10000", s)] = at(time.Hour)
	}
	for i := range running {
		snap.Open = append(snap.Open, Query{
			Server:    fmt.Sprintf("hs%d.example.com:10000", i%servers),
			QueryID:   fmt.Sprintf("q%d", i),
			JobName:   fmt.Sprintf("job%d", i%500),
			PreTimeMs: at(time.Duration(i%3600) * time.Second),
		})
	}
	p.mu.Lock()
	p.w = newWorkload(snap)
	p.mu.Unlock()
	return p
}
