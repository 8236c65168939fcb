package rolling

import (
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// benchKeys returns n peer-like keys ("10.0.i.j:9866").
func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "10.0." + strconv.Itoa(i/250) + "." + strconv.Itoa(i%250) + ":9866"
	}
	return keys
}

// BenchmarkAddAt records into one known key on one goroutine: the cost of
// one packet on a DataNode's hot path.
func BenchmarkAddAt(b *testing.B) {
	a := New(HadoopDefaultWindow, HadoopDefaultWindows)
	now := time.Unix(1_700_000_000, 0)
	a.AddAt(now, "10.0.0.5:9866", 1)
	b.ReportAllocs()
	for b.Loop() {
		a.AddAt(now, "10.0.0.5:9866", 2.5)
	}
}

// BenchmarkAddAtParallel records from b.RunParallel's goroutines over 1 000
// known keys, each goroutine walking its own block of them, as a DataNode's
// packet responders each time one pipeline to one downstream peer. Compare
// ns/op across -cpu 1,2: it should halve.
func BenchmarkAddAtParallel(b *testing.B) {
	benchmarkAddAtParallel(b, false)
}

// BenchmarkAddAtParallelShared is BenchmarkAddAtParallel with every goroutine
// walking all 1 000 keys, so that each key is written by every CPU in turn:
// the cost of moving a key's cache lines between CPUs, which no lock design
// avoids.
func BenchmarkAddAtParallelShared(b *testing.B) {
	benchmarkAddAtParallel(b, true)
}

func benchmarkAddAtParallel(b *testing.B, shared bool) {
	a := New(HadoopDefaultWindow, HadoopDefaultWindows)
	now := time.Unix(1_700_000_000, 0)
	keys := benchKeys(1000)
	for _, k := range keys {
		a.AddAt(now, k, 1)
	}
	blocks := runtime.GOMAXPROCS(0)
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		mine, i := keys, 0
		if shared {
			// Start each goroutine at another key, so that they do not
			// march in step.
			i = int(next.Add(397)) % len(keys)
		} else {
			g := int(next.Add(1)-1) % blocks
			mine = keys[g*len(keys)/blocks : (g+1)*len(keys)/blocks]
		}
		for pb.Next() {
			a.AddAt(now, mine[i], 2.5)
			if i++; i == len(mine) {
				i = 0
			}
		}
	})
}

// BenchmarkSnapshot takes a snapshot of 1 000 keys, every one with samples
// in all 36 windows.
func BenchmarkSnapshot(b *testing.B) {
	a := New(HadoopDefaultWindow, HadoopDefaultWindows)
	start := time.Unix(1_700_000_000, 0)
	keys := benchKeys(1000)
	for w := range HadoopDefaultWindows {
		now := start.Add(time.Duration(w) * HadoopDefaultWindow)
		for _, k := range keys {
			a.AddAt(now, k, float64(w))
		}
	}
	now := start.Add((HadoopDefaultWindows - 1) * HadoopDefaultWindow)
	b.ReportAllocs()
	for b.Loop() {
		if got := a.Snapshot(now, 0); len(got) != len(keys) {
			b.Fatalf("Snapshot returned %d keys, want %d", len(got), len(keys))
		}
	}
}
