package datanode

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/jmx"
)

// fakeDataNode serves a DataNode's /jmx: info for the DataNodeInfo qry,
// volumes for the volume beans' qry; the test swaps the files.
type fakeDataNode struct {
	mu            sync.Mutex
	info, volumes string
	queries       []string
}

func (d *fakeDataNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := r.URL.Query().Get("qry")
	d.queries = append(d.queries, q)
	file := d.info
	if q == jmx.DataNodeVolumesQuery {
		file = d.volumes
	}
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write(data)
}

func (d *fakeDataNode) set(info, volumes string) {
	d.mu.Lock()
	d.info, d.volumes = info, volumes
	d.mu.Unlock()
}

// The DataNode's counts that grew between two reads become that many
// operations at the bean's mean time; volumes the agent does not know are
// left out; a DataNode without disk statistics gives nothing, logged
// once.
// Reference: DataNodeDiskMetrics (the per-volume means it tests),
// DataNode.getSlowDisks (null when disk statistics are off).
func TestDiskHadoopScrape(t *testing.T) {
	dn := &fakeDataNode{}
	srv := httptest.NewServer(dn)
	defer srv.Close()
	vols := []disk.Volume{{Path: "/data/1"}, {Path: "/data/2"}, {Path: "/data/3"}, {Path: "/data/4"}}
	rec, err := disk.NewRecorder(time.Minute, 3, vols)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	h := newDiskHadoop(srv.URL, srv.Client(), time.Minute, rec, &counters{}, slog.New(slog.NewTextHandler(&logs, nil)))
	ctx := context.Background()
	t0 := time.Unix(1_700_000_000, 0)

	dn.set("dn-slow-peer.json", "dn-volumes.json") // SlowDisks null: statistics off
	for i := range 2 {
		if err := h.scrape(ctx, t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(logs.String(), "measured by the agent alone"); n != 1 {
		t.Errorf("statistics off logged %d times, want once", n)
	}
	dn.set("dn-info-slowdisks.json", "dn-volumes.json")
	if err := h.scrape(ctx, t0.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	dn.set("dn-info-slowdisks.json", "dn-volumes-later.json")
	if err := h.scrape(ctx, t0.Add(62*time.Second)); err != nil {
		t.Fatal(err)
	}
	stats := rec.SnapshotAt(t0.Add(62 * time.Second))
	// /data/3: 600 metadata operations of 0.45 ms, 2400 reads of 1.625
	// ms, 3600 writes of 96.5 ms.
	s := stats[2]
	want := [disk.NumOps]disk.OpStats{{MeanMs: 0.45, Samples: 600}, {MeanMs: 1.625, Samples: 2400}, {MeanMs: 96.5, Samples: 3600}}
	for op := range want {
		if got := s.Ops[op]; got.Samples != want[op].Samples || got.MeanMs < want[op].MeanMs-1e-9 || got.MeanMs > want[op].MeanMs+1e-9 {
			t.Errorf("/data/3 %v = %+v, want %+v", disk.Op(op), got, want[op])
		}
	}
	if !strings.Contains(logs.String(), "keeps disk statistics again") || !strings.Contains(logs.String(), "/data/3") {
		t.Errorf("the DataNode's recovery and its slow disks were not logged:\n%s", logs.String())
	}
	slow := disk.NewDetector(disk.DefaultMinDisks, disk.DefaultLowThreshold).Detect(stats)
	if len(slow) != 0 {
		t.Errorf("four volumes were tested: %v", slow) // /data/5 is not the agent's
	}
	for _, q := range dn.queries {
		if q != jmx.DataNodeInfoBean && q != jmx.DataNodeVolumesQuery {
			t.Errorf("asked for qry=%q", q)
		}
	}
	dn.set("dn-info-slowdisks.json", "dn-volumes-negative.json")
	if err := h.scrape(ctx, t0.Add(63*time.Second)); err == nil {
		t.Error("a negative mean was read")
	}
}

func TestJMXQueryURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://dn:9864":               "http://dn:9864/jmx?qry=" + jmx.DataNodeVolumesQuery,
		"http://dn:9864/jmx?qry=Other": "http://dn:9864/jmx?qry=" + jmx.DataNodeVolumesQuery,
		"https://dn:9865/prefix/jmx":   "https://dn:9865/prefix/jmx?qry=" + jmx.DataNodeVolumesQuery,
	} {
		if got := jmxQueryURL(raw, jmx.DataNodeVolumesQuery); got != want {
			t.Errorf("jmxQueryURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
