package discovery

import (
	"fmt"
	"log/slog"
	"testing"
)

// Servers is on the path of every pick and list (hiveserver.Source).
func BenchmarkWatcherServers(b *testing.B) {
	regs := map[string]Registration{}
	for i := range 100 {
		s := fmt.Sprintf("hs%d.example.com:10000", i)
		regs[s] = Registration{Name: Name{Server: s}}
	}
	w := &Watcher{log: slog.New(slog.DiscardHandler)}
	w.init()
	w.publish(regs)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n += len(w.Servers())
	}
	if n == 0 {
		b.Fatal("no servers")
	}
}

// A Publisher's tick: ask Eligible (not measured), build the records of
// the best k, compare them with what is published. No ZooKeeper call.
func BenchmarkPublisherTick(b *testing.B) {
	for _, k := range []int{1, 3} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			var eligible []string
			for i := range 100 {
				eligible = append(eligible, fmt.Sprintf("hs%d.example.com:10000", i))
			}
			reg := Registration{
				Name: Name{Server: "x:1", Version: "3.1.3"},
				Data: hs2Configs("10.0.0.5", 10000),
			}
			cfg := testPublisherConfig(func() []string { return eligible })
			cfg.Count = k
			cfg.Registration = func(string) (Registration, bool) { return reg, true }
			p := newPublisher(cfg, newFakeZK(fakeSession))
			applied := p.records(eligible)
			b.ReportAllocs()
			for b.Loop() {
				if !sameRecords(p.records(cfg.Eligible()), applied) {
					b.Fatal("records changed")
				}
			}
		})
	}
}
