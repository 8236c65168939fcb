package namenode

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// benchStateServer is a service that heard from datanodes DataNodes, of
// which reporters each report 5 slow peers.
func benchStateServer(b *testing.B, datanodes, reporters int) (*Server, *fakeClock) {
	s, clock, _ := newTestServer(b, nil)
	for i := range datanodes {
		node := fmt.Sprintf("10.0.%d.%d:9866", i/250, i%250+1)
		hb := reports.Heartbeat{Node: node}
		if i < reporters {
			hb.SlowPeers = []reports.SlowPeer{}
			for j := range 5 {
				hb.SlowPeers = append(hb.SlowPeers, reports.SlowPeer{Node: fmt.Sprintf("10.9.0.%d:9866", j+1),
					LatencyMs: 30 + float64(j), MedianMs: 2, MADMs: 0.5, UpperLimitMs: 6})
			}
		}
		mustHeartbeat(b, s, hb)
	}
	return s, clock
}

// BenchmarkRestore: a starting replica takes the state of a live one
// over loopback HTTP (fetch, strict parse, import), 1 000 DataNodes of
// which 200 report 5 slow peers each.
func BenchmarkRestore(b *testing.B) {
	a, clock := benchStateServer(b, 1000, 200)
	live := httptest.NewServer(a.Handler())
	defer live.Close()
	b.ResetTimer()
	for b.Loop() {
		s, c, _ := newTestServer(b, nil)
		c.Advance(clock.Now().Sub(c.Now()))
		if _, err := s.Restore(context.Background(), []string{live.URL}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSaveStateFile: one periodic save of the same state, written
// to a temporary file, synced and renamed.
func BenchmarkSaveStateFile(b *testing.B) {
	s, clock := benchStateServer(b, 1000, 200)
	path := filepath.Join(b.TempDir(), "state.json")
	for b.Loop() {
		if err := s.SaveStateFile(clock.Now().Add(time.Millisecond), path); err != nil {
			b.Fatal(err)
		}
	}
}

// fullSnapshot is the state of a service with every default limit
// reached at now: 50 000 DataNodes, each reporting 20 of 10 000 slow
// nodes (1 000 000 entries).
func fullSnapshot(now time.Time) Snapshot {
	st := Snapshot{SavedAt: now}
	for i := range DefaultMaxDataNodes {
		node := fmt.Sprintf("10.%d.%d.%d:9866", i/62500, i/250%250, i%250+1)
		st.DataNodes = append(st.DataNodes, DataNode{Node: node, LastHeartbeat: now})
		h := tracker.Held{Reporter: node, Arrival: now}
		for j := range DefaultMaxTrackerEntries / DefaultMaxDataNodes {
			slow := (i*7 + j*499) % DefaultMaxSlowNodes
			h.SlowPeers = append(h.SlowPeers, reports.SlowPeer{Node: fmt.Sprintf("10.200.%d.%d:9866", slow/250, slow%250+1),
				LatencyMs: 30, MedianMs: 2, MADMs: 0.5, UpperLimitMs: 6})
		}
		st.Reports = append(st.Reports, h)
	}
	return st
}

// fullStateServer is a service holding fullSnapshot.
func fullStateServer(b *testing.B) (*Server, *fakeClock) {
	s, clock, _ := newTestServer(b, nil)
	if nr, nn := s.ImportState(clock.Now(), fullSnapshot(clock.Now())); nr != DefaultMaxDataNodes || nn != DefaultMaxDataNodes {
		b.Fatalf("imported %d reports, %d DataNodes", nr, nn)
	}
	return s, clock
}

// BenchmarkFinalSaveFull: the save of the state file when the service
// stops with every default limit reached (what FinalSaveTimeout bounds).
func BenchmarkFinalSaveFull(b *testing.B) {
	s, clock := fullStateServer(b)
	path := filepath.Join(b.TempDir(), "state.json")
	b.ReportAllocs()
	for b.Loop() {
		clock.Advance(time.Millisecond)
		f := s.useStateFile(path)
		f.final()
	}
	if fi, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(fi.Size())/1e6, "MB")
	}
}
