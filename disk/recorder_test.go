package disk

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

func newRecorder(t testing.TB, volumes ...Volume) *Recorder {
	t.Helper()
	r, err := NewRecorder(time.Minute, 3, volumes)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNewRecorderRefuses(t *testing.T) {
	f := func(inMsg string, volumes ...Volume) {
		t.Helper()
		_, err := NewRecorder(time.Minute, 3, volumes)
		if err == nil || !strings.Contains(err.Error(), inMsg) {
			t.Fatalf("NewRecorder(%v) = %v, want an error with %q", volumes, err, inMsg)
		}
	}
	f("volume 0: missing volume name", Volume{})
	f(`volume "/a" named twice`, Volume{Path: "/a"}, Volume{Path: "/a"})
	f(`volume "/a": kind: `, Volume{Path: "/a", Kind: "a\nb"})
	f("at most 512 allowed", make([]Volume, reports.MaxDisks+1)...)
}

func TestRecorderWindows(t *testing.T) {
	t0 := time.Unix(1_700_000_080, 0) // 40 s into the minute from 1 700 000 040
	r := newRecorder(t, Volume{Path: "/a", Kind: "hdd"}, Volume{Path: "/b"})
	if !r.AddAt(t0, "/a", Read, 4*time.Millisecond) || !r.AddManyAt(t0, "/a", Read, 80*time.Millisecond, 10) {
		t.Fatal("a sample of a known volume was not recorded")
	}
	for _, bad := range []bool{
		r.AddAt(t0, "/c", Read, time.Millisecond),
		r.AddAt(t0, "/a", Op(3), time.Millisecond),
		r.AddAt(t0, "/a", Read, -time.Millisecond),
		r.AddManyAt(t0, "/a", Read, time.Millisecond, 0),
	} {
		if bad {
			t.Fatal("a bad sample was recorded")
		}
	}
	r.AddAt(t0.Add(time.Minute), "/a", Write, 1500*time.Microsecond)

	got := r.SnapshotAt(t0.Add(time.Minute))
	if len(got) != 2 || got[0].Path != "/a" || got[0].Kind != "hdd" || got[1].Path != "/b" {
		t.Fatalf("volumes %+v", got)
	}
	if o := got[0].Ops[Read]; o.Samples != 11 || o.MeanMs != 84.0/11 {
		t.Fatalf("read %+v, want 11 samples at %v ms", o, 84.0/11)
	}
	if o := got[0].Ops[Write]; o.Samples != 1 || o.MeanMs != 1.5 {
		t.Fatalf("write %+v", o)
	}
	if got[1].Ops != [NumOps]OpStats{} || got[0].Load != nil {
		t.Fatalf("unrecorded figures: %+v", got)
	}
	// The read's window starts at 1 700 000 040 and is valid for 3 minutes.
	got = r.SnapshotAt(time.Unix(1_700_000_040+179, 0))
	if got[0].Ops[Read].Samples != 11 {
		t.Fatalf("read expired early: %+v", got[0].Ops)
	}
	got = r.SnapshotAt(time.Unix(1_700_000_040+180, 0))
	if got[0].Ops[Read].Samples != 0 || got[0].Ops[Write].Samples != 1 {
		t.Fatalf("after 3 minutes: %+v", got[0].Ops)
	}
}

func TestRecorderLoad(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	r := newRecorder(t, Volume{Path: "/a"})
	// Two reads of the kernel's counters, 10 s apart each.
	if err := r.AddLoadAt(t0, "/a", 10*time.Second, 500, 40<<20, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := r.AddLoadAt(t0.Add(10*time.Second), "/a", 10*time.Second, 1500, 60<<20, 10*time.Second+time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := r.AddLoadAt(t0, "/unknown", time.Second, 1, 1, 0); err != nil {
		t.Fatalf("unknown volume: %v", err)
	}
	got := r.SnapshotAt(t0.Add(10 * time.Second))[0].Load
	want := reports.DiskLoad{IOPS: 100, BytesPerSecond: float64(100<<20) / 20, Utilization: 0.6}
	if got == nil || *got != want {
		t.Fatalf("load %+v, want %+v", got, want)
	}
	for _, bad := range []struct {
		span, busy time.Duration
		ios, bytes int64
	}{
		{0, 0, 1, 1}, {time.Second, 0, -1, 0}, {time.Second, 0, 0, -1},
		{time.Second, -time.Millisecond, 0, 0}, {time.Second, time.Second + 2*time.Millisecond, 0, 0},
	} {
		if err := r.AddLoadAt(t0, "/a", bad.span, bad.ios, bad.bytes, bad.busy); !errors.Is(err, ErrBadLoad) {
			t.Fatalf("AddLoadAt(%+v) = %v, want ErrBadLoad", bad, err)
		}
	}
}

// TestRecorderConcurrent records from many goroutines while snapshots
// run, and checks that no sample is lost (run it with -race).
func TestRecorderConcurrent(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	vols := []Volume{{Path: "/a"}, {Path: "/b"}, {Path: "/c"}}
	r := newRecorder(t, vols...)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				v := vols[(g+i)%3].Path
				r.AddAt(now, v, Op(i%NumOps), time.Millisecond)
				if i%100 == 0 {
					r.SnapshotAt(now)
				}
			}
		})
	}
	wg.Wait()
	var total int64
	for _, s := range r.SnapshotAt(now) {
		for _, o := range s.Ops {
			total += o.Samples
			if o.Samples > 0 && o.MeanMs != 1 {
				t.Fatalf("mean %v, want 1", o.MeanMs)
			}
		}
	}
	if total != 8*500 {
		t.Fatalf("%d samples, want %d", total, 8*500)
	}
}
