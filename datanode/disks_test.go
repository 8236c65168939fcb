package datanode

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/reports"
)

func TestMergeStats(t *testing.T) {
	stats := func(path string, ms [disk.NumOps]float64, n [disk.NumOps]int64, load *reports.DiskLoad) disk.Stats {
		s := disk.Stats{Volume: disk.Volume{Path: path}, Load: load}
		for op := range ms {
			s.Ops[op] = disk.OpStats{MeanMs: ms[op], Samples: n[op]}
		}
		return s
	}
	load := &reports.DiskLoad{IOPS: 40, BytesPerSecond: 1 << 20, Utilization: 0.2}
	kernel := []disk.Stats{
		stats("/a", [3]float64{0, 2, 3}, [3]int64{0, 500, 800}, load),
		stats("/b", [3]float64{0, 2, 40}, [3]int64{0, 500, 800}, load),
	}
	probes := []disk.Stats{
		stats("/a", [3]float64{5, 9, 1}, [3]int64{20, 20, 20}, nil),
		stats("/b", [3]float64{5, 0, 4}, [3]int64{20, 0, 20}, nil),
	}
	got := mergeStats([][]disk.Stats{kernel, probes}, 1)
	want := []disk.Stats{
		// The slower figure of each operation, with its own count.
		stats("/a", [3]float64{5, 9, 3}, [3]int64{20, 20, 800}, load),
		stats("/b", [3]float64{5, 2, 40}, [3]int64{20, 500, 800}, load),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mergeStats =\n%+v\nwant\n%+v", got, want)
	}
	// The load comes from whichever source has one.
	if got := mergeStats([][]disk.Stats{probes, kernel}, 1); got[0].Load != load {
		t.Errorf("load %+v, want the kernel's", got[0].Load)
	}
	if kernel[0].Ops[disk.Metadata].Samples != 0 {
		t.Error("mergeStats changed its input")
	}
	// With 21 samples needed, the probes' 20 do not count where the
	// kernel has enough, and count where nobody has.
	got = mergeStats([][]disk.Stats{kernel, probes}, 21)
	want = []disk.Stats{
		stats("/a", [3]float64{5, 2, 3}, [3]int64{20, 500, 800}, load),
		stats("/b", [3]float64{5, 2, 40}, [3]int64{20, 500, 800}, load),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mergeStats(21) =\n%+v\nwant\n%+v", got, want)
	}
}

// An agent with volumes sends its slow-disk report with every slow-peer
// report; with peer statistics off, alone on the same schedule.
func TestAgentSendsDiskReport(t *testing.T) {
	for _, peers := range []bool{true, false} {
		svc := newFakeService(t, false)
		cfg := DefaultConfig()
		cfg.ID, cfg.NameNodes = "127.0.0.1:9866", []string{svc.srv.URL}
		cfg.HeartbeatInterval, cfg.ReportInterval, cfg.MaxRetryBackoff = 100*time.Millisecond, 500*time.Millisecond, 200*time.Millisecond
		cfg.DiskStatsInterval, cfg.DiskProbeInterval, cfg.DiskProbeBudget = 50*time.Millisecond, 20*time.Millisecond, time.Second
		for range 5 {
			cfg.Volumes = append(cfg.Volumes, disk.Volume{Path: t.TempDir()})
		}
		cfg.PeerStatsEnabled = peers
		if peers {
			// Enough peers measured that the slow-peer report goes.
			cfg.MinOutlierDetectionNodes, cfg.MinOutlierDetectionSamples = 1, 0
			cfg.PeerMetrics = NewPeerMetrics(probeMetricsConfig(cfg))
			cfg.PeerMetrics.AddSendPacketDownstream("127.0.0.2:9866", time.Millisecond)
		}
		a, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Disks().Volumes(); len(got) != 5 {
			t.Fatalf("volumes %+v", got)
		}
		stop := startAgent(t, a)
		withDisks := func() []reports.Heartbeat {
			var out []reports.Heartbeat
			for _, hb := range svc.Beats() {
				if hb.HasDiskReport() {
					out = append(out, hb)
				}
			}
			return out
		}
		waitFor(t, 20*time.Second, "two disk reports with every volume measured", func() bool {
			hbs := withDisks()
			if len(hbs) < 2 {
				return false
			}
			last := hbs[len(hbs)-1]
			for _, d := range last.DiskLatencies {
				if d.Samples["WRITE"] == 0 {
					return false
				}
			}
			// and heartbeats between reports that carry none
			return len(last.DiskLatencies) == 5 && len(svc.Beats()) >= len(hbs)+3
		}, svc)
		// /metrics has the volumes' latencies and the probes' counter.
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		body := rec.Body.String()
		if !strings.Contains(body, `slowpeer_datanode_disk_latency_seconds{volume="`+cfg.Volumes[0].Path+`",op="WRITE"}`) ||
			strings.Contains(body, "slowpeer_datanode_disk_probes_total 0\n") {
			t.Errorf("/metrics lacks the disks:\n%s", body)
		}
		stop()
		for _, hb := range svc.Beats() {
			// (a slow-peer report may go before the disks' warm-up ends)
			if peers && hb.HasDiskReport() && !hb.HasReport() || !peers && hb.HasReport() {
				t.Fatalf("peers %v: a heartbeat with slowPeers %v and slowDisks %v", peers, hb.SlowPeers, hb.SlowDisks)
			}
		}
	}
}
