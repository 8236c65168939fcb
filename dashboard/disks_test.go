package dashboard

import (
	"slices"
	"testing"
)

func TestCompareNatural(t *testing.T) {
	got := []string{"/data/10", "/data/2", "/grid/1", "/data/1", "/data", "/data/02x", "/data/2b"}
	slices.SortFunc(got, compareNatural)
	want := []string{"/data", "/data/1", "/data/2", "/data/2b", "/data/02x", "/data/10", "/grid/1"}
	if !slices.Equal(got, want) {
		t.Fatalf("sorted %q, want %q", got, want)
	}
}

// A node whose every volume is slow stands out as a row, against the
// median of its kind only: the NVMe volumes are not the HDDs' baseline.
func TestDiskHeatmap(t *testing.T) {
	d := &Disks{}
	for _, n := range []string{"a:1", "b:1", "c:1", "slow:1"} {
		for _, v := range []string{"/d/0", "/d/1"} {
			ms := 6.0
			if n == "slow:1" {
				ms = 70
			}
			d.Volumes = append(d.Volumes, Volume{Node: n, Disk: v, Kind: "hdd", LatencyMs: ms})
		}
		d.Volumes = append(d.Volumes, Volume{Node: n, Disk: "/nvme", Kind: "nvme", LatencyMs: 0.2})
	}
	p := newDiskPage(d)
	if p.Heat.AllNodes != 4 || p.Heat.AllDisks != 3 || !slices.Equal(p.Heat.Disks, []string{"/d/0", "/d/1", "/nvme"}) {
		t.Fatalf("heatmap axes %+v", p.Heat)
	}
	for _, r := range p.Heat.Rows {
		for i, c := range r.Cells {
			if c.Slow() != (r.Reporter == "slow:1" && i < 2) {
				t.Fatalf("%s %s: %+v", r.Reporter, p.Heat.Disks[i], c)
			}
		}
	}
	if newDiskPage(nil) != nil {
		t.Fatal("no disks, yet a page of them")
	}
}
