package diskstat

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseFixture(t *testing.T) {
	data, err := os.ReadFile("testdata/diskstats")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 {
		t.Fatalf("%d devices, want 7", len(got))
	}
	// loop1: 142 reads, 2816 sectors, 23 ms; 160 writes, 26346 sectors,
	// 1943 ms; 0 in flight; 1952 ms busy.
	want := Counters{Device: Device{7, 1}, Name: "loop1", Reads: 142, ReadSectors: 2816, ReadMs: 23,
		Writes: 160, WriteSectors: 26346, WriteMs: 1943, BusyMs: 1952}
	if got[1] != want {
		t.Errorf("loop1 = %+v\nwant    %+v", got[1], want)
	}
	// The 14-field line of an old kernel, and one with flushes.
	if got[4].Name != "sda" || got[4].Writes != 406 || got[4].BusyMs != 1604 {
		t.Errorf("sda = %+v", got[4])
	}
	if got[6].Device != (Device{259, 0}) || got[6].InFlight != 3 || got[6].WriteSectors != 640000 {
		t.Errorf("nvme0n1 = %+v", got[6])
	}
}

func TestParseRejects(t *testing.T) {
	f := func(name, doc, want string) {
		t.Helper()
		_, err := Parse([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want one containing %q", name, err, want)
		}
	}
	f("short", "7 0 loop0 1 2 3\n", "line 1: 6 fields")
	f("letters", "7 0 loop0 1 2 3 4 x 6 7 8 9 10 11\n", `"x": not a decimal number`)
	f("negative", "7 0 loop0 1 2 3 4 -5 6 7 8 9 10 11\n", "not a decimal number")
	f("major too big", "4294967296 0 loop0 1 2 3 4 5 6 7 8 9 10 11\n", "out of range")
	f("overflow", "7 0 loop0 99999999999999999999 2 3 4 5 6 7 8 9 10 11\n", "out of range")
	f("second line", "7 0 loop0 1 2 3 4 5 6 7 8 9 10 11\n7 1 loop1\n", "line 2")
}

func TestParseBlankLines(t *testing.T) {
	got, err := Parse([]byte("\n  7 0 loop0 1 2 3 4 5 6 7 8 9 10 11\n\n"))
	if err != nil || len(got) != 1 || got[0].Reads != 1 || got[0].BusyMs != 10 {
		t.Fatalf("Parse = %+v, %v", got, err)
	}
}

func TestReaderPicksDevices(t *testing.T) {
	r := Reader{File: "testdata/diskstats"}
	devs := []Device{{254, 0}, {9, 9}, {7, 1}}
	out := make([]Counters, 3)
	found := make([]bool, 3)
	if err := r.Read(devs, out, found); err != nil {
		t.Fatal(err)
	}
	if !found[0] || found[1] || !found[2] {
		t.Fatalf("found = %v, want [true false true]", found)
	}
	if out[0].Name != "vda" || out[0].Writes != 36792 || out[2].Name != "loop1" || out[2].WriteMs != 1943 {
		t.Errorf("out = %+v", out)
	}
	r.File = "testdata/missing"
	if err := r.Read(devs, out, found); err == nil {
		t.Error("a missing file read without error")
	}
	if out[0].Name != "vda" || !found[0] {
		t.Error("a failed read changed out or found")
	}
}

func TestReaderProc(t *testing.T) {
	if _, err := os.Stat(Path); err != nil {
		t.Skip("no /proc/diskstats here")
	}
	var r Reader
	all, err := Parse(mustRead(t, Path))
	if err != nil || len(all) == 0 {
		t.Fatalf("Parse(%s) = %d devices, %v", Path, len(all), err)
	}
	devs := []Device{all[0].Device}
	out, found := make([]Counters, 1), make([]bool, 1)
	if err := r.Read(devs, out, found); err != nil || !found[0] || out[0].Name != all[0].Name {
		t.Fatalf("Read = %+v %v, %v", out, found, err)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDelta(t *testing.T) {
	prev := Counters{Device: Device{7, 1}, Reads: 100, Writes: 50, ReadSectors: 800, WriteSectors: 400,
		ReadMs: 100, WriteMs: 200, BusyMs: 1000}
	cur := prev
	cur.Reads, cur.Writes = 110, 90
	cur.ReadSectors, cur.WriteSectors = 880, 720
	cur.ReadMs, cur.WriteMs = 130, 2200
	cur.BusyMs = 3000
	s, ok := Delta(prev, cur, 2*time.Second)
	if !ok {
		t.Fatal("Delta refused a good pair")
	}
	want := Sample{Interval: 2 * time.Second, Reads: 10, Writes: 40, ReadBytes: 80 * 512, WriteBytes: 320 * 512,
		ReadTime: 30 * time.Millisecond, WriteTime: 2 * time.Second, Busy: 2 * time.Second}
	if s != want {
		t.Fatalf("Delta = %+v\nwant    %+v", s, want)
	}
	if s.IOPS() != 25 || s.BytesPerSecond() != 400*512/2 || s.Utilization() != 1 {
		t.Errorf("IOPS %v, bytes/s %v, utilization %v", s.IOPS(), s.BytesPerSecond(), s.Utilization())
	}
	// 2.03 s of response time in 2 s busy: about one request in flight.
	if c := s.Concurrency(); c < 1.01 || c > 1.02 {
		t.Errorf("Concurrency = %v, want 1.015", c)
	}
	for _, bad := range []func(c *Counters){
		func(c *Counters) { c.Reads = 99 },
		func(c *Counters) { c.WriteMs = 0 },
		func(c *Counters) { c.BusyMs = 1 },
		func(c *Counters) { c.Device.Minor = 2 },
	} {
		c := cur
		bad(&c)
		if _, ok := Delta(prev, c, time.Second); ok {
			t.Errorf("Delta took counters that went backwards: %+v", c)
		}
	}
	if _, ok := Delta(prev, cur, 0); ok {
		t.Error("Delta took a zero interval")
	}
}

func TestServiceTime(t *testing.T) {
	f := func(name string, s Sample, readMean, writeMean time.Duration) {
		t.Helper()
		if s.Reads > 0 {
			if got := s.ReadService() / time.Duration(s.Reads); got != readMean {
				t.Errorf("%s: read service %v, want %v", name, got, readMean)
			}
		}
		if s.Writes > 0 {
			if got := s.WriteService() / time.Duration(s.Writes); got != writeMean {
				t.Errorf("%s: write service %v, want %v", name, got, writeMean)
			}
		}
	}
	// One request at a time: service time is response time.
	f("queue of one", Sample{Interval: time.Second, Writes: 20, WriteTime: time.Second, Busy: time.Second},
		0, 50*time.Millisecond)
	// A healthy device with 32 requests queued: each waits ~64 ms and
	// takes 2 ms.
	f("deep queue", Sample{Interval: time.Second, Writes: 500, WriteTime: 32 * time.Second, Busy: time.Second},
		0, 2*time.Millisecond)
	// Reads and writes share the busy time by their response times.
	f("mixed", Sample{Interval: time.Second, Reads: 100, Writes: 100, ReadTime: time.Second, WriteTime: 3 * time.Second, Busy: time.Second},
		2500*time.Microsecond, 7500*time.Microsecond)
	// Idle most of the time.
	f("idle", Sample{Interval: time.Second, Reads: 2, ReadTime: 2 * time.Millisecond, Busy: 2 * time.Millisecond},
		time.Millisecond, 0)
}

func FuzzParse(f *testing.F) {
	f.Add(mustReadF(f, "testdata/diskstats"))
	f.Add([]byte("7 0 loop0 1 2 3 4 5 6 7 8 9 10 11"))
	f.Add([]byte("\n\n 1 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Parse(data)
		if err != nil {
			return
		}
		// What parses, parses the same through the Reader's path.
		var devs []Device
		for _, c := range got {
			devs = append(devs, c.Device)
		}
		if len(devs) > 64 {
			return
		}
		out, found := make([]Counters, len(devs)), make([]bool, len(devs))
		err = scan(data, func(c Counters, name []byte) bool {
			for i, d := range devs {
				if d == c.Device && !found[i] {
					c.Name = string(name)
					out[i], found[i] = c, true
				}
			}
			return true
		})
		if err != nil {
			t.Fatalf("scan failed where Parse did not: %v", err)
		}
		for i, d := range devs {
			if !found[i] {
				t.Fatalf("device %v lost", d)
			}
		}
	})
}

func mustReadF(f *testing.F, name string) []byte {
	b, err := os.ReadFile(name)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
