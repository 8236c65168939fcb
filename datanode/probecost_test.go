package datanode

import (
	"context"
	"flag"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	probeCost       = flag.Duration("probe-cost", 0, "run TestProbeCost for this long (0 skips it)")
	probeCostAgents = flag.Int("probe-cost-agents", 3, "agents TestProbeCost runs")
)

// TestProbeCost measures what the probes cost at the default rate: it runs
// agents on loopback, each probing the others with the default settings
// (16 packets of 64 KiB a second), and reports the CPU time and the bytes
// per second per agent. It is a measurement, not a check; run it with
//
//	go test -run TestProbeCost -v ./datanode -probe-cost=20s [-probe-cost-agents=3]
func TestProbeCost(t *testing.T) {
	if *probeCost <= 0 {
		t.Skip("a measurement: run with -probe-cost DURATION")
	}
	n := *probeCostAgents
	svc := newFakeService(t, false)
	lns, ids := loopbackListeners(t, n)
	var agents []*Agent
	for i := range n {
		cfg := DefaultConfig()
		cfg.ID, cfg.NameNodes, cfg.DataListener, cfg.Peers = ids[i], []string{svc.srv.URL}, lns[i], ids
		a, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
	}
	// A warm-up lets every agent start its first block (at a random point
	// of its first interval) before measuring.
	before, after, wall, cpu := measure(t, 2*DefaultProbeInterval, *probeCost, func() Stats { return totalStats(agents) },
		func(ctx context.Context) {
			var wg sync.WaitGroup
			for _, a := range agents {
				wg.Go(func() { a.Run(ctx) })
			}
			wg.Wait()
		})
	per := func(v int64) float64 { return float64(v) / wall.Seconds() / float64(n) }
	t.Logf("%d agents on loopback for %.1f s at the default probe rate (16 × 64 KiB every 1 s each):", n, wall.Seconds())
	t.Logf("  CPU per agent:            %.2f %% of one core (user+system of the whole test process / %d)",
		100*cpu.Seconds()/wall.Seconds()/float64(n), n)
	t.Logf("  probe bytes sent/agent:   %.0f B/s (%.2f MiB/s)", per(after.ProbeBytesSent-before.ProbeBytesSent),
		per(after.ProbeBytesSent-before.ProbeBytesSent)/(1<<20))
	t.Logf("  probe bytes read/agent:   %.0f B/s", per(after.ProbeBytesReceived-before.ProbeBytesReceived))
	t.Logf("  blocks written/agent:     %.2f /s (failed %d)", per(after.ProbeBlocks-before.ProbeBlocks),
		after.ProbeBlocksFailed-before.ProbeBlocksFailed)
	t.Logf("  latencies recorded/agent: %.1f /s", per(after.LatenciesRecorded-before.LatenciesRecorded))
}

func totalStats(agents []*Agent) Stats {
	var s Stats
	for _, a := range agents {
		x := a.Stats()
		s.ProbeBytesSent += x.ProbeBytesSent
		s.ProbeBytesReceived += x.ProbeBytesReceived
		s.ProbeBlocks += x.ProbeBlocks
		s.ProbeBlocksFailed += x.ProbeBlocksFailed
		s.LatenciesRecorded += x.LatenciesRecorded
	}
	return s
}

// measure runs run until the measurement ends: after warmup (not
// measured) it takes a sample, waits span and takes another, then cancels
// run's context and waits for it to return. It returns the two samples,
// the wall time between them and the CPU time the process used in it.
func measure[S any](t testing.TB, warmup, span time.Duration, sample func() S, run func(context.Context)) (before, after S, wall, cpu time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { run(ctx); close(done) }()
	<-time.After(warmup) // a span not measured, not a wait for an event
	before, cpu0, t0 := sample(), cpuTime(t), time.Now()
	<-time.After(span) // the measured span
	after, cpu1, t1 := sample(), cpuTime(t), time.Now()
	cancel()
	<-done
	return before, after, t1.Sub(t0), cpu1 - cpu0
}

// cpuTime returns the user and system CPU time the process has used.
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkProbeBlock writes one default block (16 packets of 64 KiB)
// through a pipeline of two relays on loopback, stop and wait: the wall
// time of one probe block, all three nodes in this process.
func BenchmarkProbeBlock(b *testing.B) {
	var ids []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		id := ln.Addr().String()
		srv := newDataServer(id, NewPeerMetrics(DefaultConfig()), &counters{}, DefaultProbeTimeout, 0, dialTCP, discard)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { srv.serve(ctx, ln); close(done) }()
		b.Cleanup(func() { cancel(); <-done })
		ids = append(ids, id)
	}
	cfg := DefaultConfig()
	cfg.ID = "127.0.0.1:1"
	p := newProber(cfg, ids, NewPeerMetrics(cfg), &counters{}, dialTCP, discard, 1)
	b.SetBytes(int64(cfg.ProbePackets * cfg.ProbePacketBytes))
	b.ReportAllocs()
	for b.Loop() {
		if err := p.probe(context.Background(), ids); err != nil {
			b.Fatal(err)
		}
	}
}
