package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseDisks(t *testing.T) {
	ok := func(body string, wantSlow []SlowDisk, wantMeasured []DiskLatency) {
		t.Helper()
		hb, err := ParseHeartbeat([]byte(body))
		if err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		if !reflect.DeepEqual(hb.SlowDisks, wantSlow) || !reflect.DeepEqual(hb.DiskLatencies, wantMeasured) {
			t.Fatalf("decode %s:\n got %#v %#v\nwant %#v %#v", body, hb.SlowDisks, hb.DiskLatencies, wantSlow, wantMeasured)
		}
		ref, err := referenceDecode([]byte(body))
		if err != nil || !reflect.DeepEqual(ref, hb) {
			t.Fatalf("decode %s: encoding/json gives %#v, %v; we %#v", body, ref, err, hb)
		}
	}
	// DESIGN.md's example entries.
	ok(`{"node":"h:1","slowDisks": [{"disk": "/data/3", "latencies": {"METADATA": 41.0, "READ": 120.5, "WRITE": 88.2}}]}`,
		[]SlowDisk{{Disk: "/data/3", Latencies: map[string]float64{"METADATA": 41, "READ": 120.5, "WRITE": 88.2}}}, nil)
	ok(`{"node":"h:1","diskLatencies": [{"disk": "/data/1", "latencies": {"METADATA": 0.4, "READ": 2.1, "WRITE": 1.7}, "samples": {"READ": 600, "WRITE": 1, "METADATA": 0}}]}`,
		nil, []DiskLatency{{Disk: "/data/1", Latencies: map[string]float64{"METADATA": 0.4, "READ": 2.1, "WRITE": 1.7},
			Samples: map[string]int64{"METADATA": 0, "READ": 600, "WRITE": 1}}})
	// Absent or null: no report; empty: a report that clears the last.
	ok(`{"node":"h:1","slowDisks":null,"diskLatencies":null}`, nil, nil)
	ok(`{"node":"h:1","slowDisks":[],"diskLatencies":[]}`, []SlowDisk{}, []DiskLatency{})
	// A slow disk without latencies, as Hadoop's DataNode can report one.
	ok(`{"node":"h:1","slowDisks":[{"latencies":{},"disk":"disk1"}]}`, []SlowDisk{{Disk: "disk1", Latencies: map[string]float64{}}}, nil)
	// Kind and load; a null load is no load.
	ok(`{"node":"h:1","diskLatencies":[{"disk":"/d","kind":"ssd","latencies":{"READ":1},"samples":{"READ":3},"load":{"utilization":1,"iops":0,"bytesPerSecond":5e6}},`+
		`{"disk":"/e","latencies":{},"samples":{},"load":null}]}`,
		nil, []DiskLatency{
			{Disk: "/d", Kind: "ssd", Latencies: map[string]float64{"READ": 1}, Samples: map[string]int64{"READ": 3},
				Load: &DiskLoad{IOPS: 0, BytesPerSecond: 5e6, Utilization: 1}},
			{Disk: "/e", Latencies: map[string]float64{}, Samples: map[string]int64{}}})

	bad := func(body, reason, inMsg string) {
		t.Helper()
		_, err := ParseHeartbeat([]byte(body))
		re, isReject := errors.AsType[*RejectError](err)
		if !isReject || re.Reason != reason || !strings.Contains(re.Message, inMsg) {
			t.Fatalf("parse %.100s: got %v, want %s with %q", body, err, reason, inMsg)
		}
		if strings.ContainsAny(re.Message, "\r\n") {
			t.Fatalf("parse %.100s: message %q is not one line", body, re.Message)
		}
	}
	slow := func(entries string) string { return `{"node":"h:1","slowDisks":[` + entries + `]}` }
	measured := func(entries string) string { return `{"node":"h:1","diskLatencies":[` + entries + `]}` }
	const m = `"disk":"/d","latencies":{"READ":1},"samples":{"READ":2}`
	bad(`{"node":"h:1","slowDisks":[],"slowDisks":[]}`, ReasonMalformed, "field slowDisks given twice")
	bad(`{"node":"h:1","diskLatencies":[],"diskLatencies":[]}`, ReasonMalformed, "field diskLatencies given twice")
	bad(`{"node":"h:1","slowDisks":{}}`, ReasonMalformed, "slowDisks: want an array")
	bad(slow(`1`), ReasonMalformed, "slowDisks[0]: want an object")
	bad(slow(`{"disk":"/d"}`), ReasonInvalid, "slowDisks[0]: missing field latencies")
	bad(slow(`{"latencies":{}}`), ReasonInvalid, "slowDisks[0]: missing field disk")
	bad(slow(`{"disk":"/d","latencies":null}`), ReasonMalformed, "slowDisks[0].latencies: want an object")
	bad(slow(`{"disk":"/d","latencies":{},"Disk":"/e"}`), ReasonUnknownField, `slowDisks[0]: unknown field "Disk"`)
	bad(slow(`{"disk":"/d","disk":"/e","latencies":{}}`), ReasonMalformed, "slowDisks[0]: field disk given twice")
	bad(slow(`{"disk":"/d","latencies":{"read":1}}`), ReasonUnknownField, `slowDisks[0].latencies: unknown operation "read"`)
	bad(slow(`{"disk":"/d","latencies":{"READ":1,"READ":2}}`), ReasonMalformed, "slowDisks[0].latencies: field READ given twice")
	bad(slow(`{"disk":"/d","latencies":{"READ":-1}}`), ReasonInvalid, "slowDisks[0]: latencies: READ: negative latency")
	bad(slow(`{"disk":"/d","latencies":{"READ":"NaN"}}`), ReasonMalformed, "slowDisks[0].latencies.READ: want a number")
	bad(slow(`{"disk":"/d","latencies":{"WRITE":1e999}}`), ReasonInvalid, "slowDisks[0].latencies.WRITE: 1e999 does not fit")
	bad(slow(`{"disk":"","latencies":{}}`), ReasonInvalid, "slowDisks[0]: disk: missing volume name")
	bad(slow(`{"disk":"/d\u0001","latencies":{}}`), ReasonInvalid, "control character")
	bad(slow(`{"disk":"/`+strings.Repeat("x", MaxDiskNameBytes)+`","latencies":{}}`), ReasonInvalid, "at most 1024 allowed")
	bad(slow(`{"disk":"/d","latencies":{}},{"disk":"/d","latencies":{}}`), ReasonInvalid, `slowDisks[1]: disk "/d" named twice`)

	bad(measured(`{"disk":"/d","latencies":{}}`), ReasonInvalid, "diskLatencies[0]: missing field samples")
	bad(measured(`{`+m+`,"kind":null}`), ReasonMalformed, "diskLatencies[0].kind: want a string")
	bad(measured(`{`+m+`,"kind":"a\"b"}`), ReasonInvalid, "kind: ")
	bad(measured(`{`+m+`,"kind":"`+strings.Repeat("k", MaxDiskKindBytes+1)+`"}`), ReasonInvalid, "kind: 65 bytes")
	bad(measured(`{"disk":"/d","latencies":{"READ":1},"samples":{}}`), ReasonInvalid, "samples: not the operations of latencies")
	bad(measured(`{"disk":"/d","latencies":{"READ":1},"samples":{"WRITE":1}}`), ReasonInvalid, `samples: operation "WRITE" has no latency`)
	bad(measured(`{"disk":"/d","latencies":{"READ":1},"samples":{"READ":-1}}`), ReasonInvalid, "samples: READ: negative count")
	bad(measured(`{"disk":"/d","latencies":{"READ":1},"samples":{"READ":1.5}}`), ReasonMalformed, "samples.READ: want a whole number")
	bad(measured(`{"disk":"/d","latencies":{"READ":1},"samples":{"RW":1}}`), ReasonUnknownField, "unknown operation")
	bad(measured(`{`+m+`,"load":{"iops":1,"bytesPerSecond":1}}`), ReasonInvalid, "diskLatencies[0].load: missing field utilization")
	bad(measured(`{`+m+`,"load":{"iops":1,"bytesPerSecond":1,"utilization":1.01}}`), ReasonInvalid, "load: utilization: 1.01 is above 1")
	bad(measured(`{`+m+`,"load":{"iops":-1,"bytesPerSecond":1,"utilization":0}}`), ReasonInvalid, "load: iops: negative")
	bad(measured(`{`+m+`,"load":{"iops":1,"bytesPerSecond":1,"utilization":0,"queue":2}}`), ReasonUnknownField, `load: unknown field "queue"`)
	bad(measured(`{`+m+`},{`+m+`}`), ReasonInvalid, `diskLatencies[1]: disk "/d" named twice`)

	many := func(n int, entry string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, entry, i)
		}
		return b.String()
	}
	bad(slow(many(MaxDisks+1, `{"disk":"/d%d","latencies":{}}`)), ReasonTooManyDisks, "slowDisks: more than 512 entries")
	bad(measured(many(MaxDisks+1, `{"disk":"/d%d","latencies":{},"samples":{}}`)), ReasonTooManyDisks, "diskLatencies: more than 512 entries")
	if _, err := ParseHeartbeat([]byte(slow(many(MaxDisks, `{"disk":"/d%d","latencies":{"READ":1}}`)))); err != nil {
		t.Fatalf("decode %d slow disks: %v", MaxDisks, err)
	}
}

func TestValidateDisks(t *testing.T) {
	f := func(hb Heartbeat, inMsg string) {
		t.Helper()
		err := hb.Validate()
		if err == nil || !strings.Contains(err.Error(), inMsg) {
			t.Fatalf("Validate(%+v) = %v, want an error with %q", hb, err, inMsg)
		}
	}
	// Nil maps encode as null, which the parser refuses: Validate too.
	f(Heartbeat{Node: "h:1", SlowDisks: []SlowDisk{{Disk: "/d"}}}, "slowDisks[0]: latencies: missing")
	f(Heartbeat{Node: "h:1", DiskLatencies: []DiskLatency{{Disk: "/d", Samples: map[string]int64{}}}}, "latencies: missing")
	f(Heartbeat{Node: "h:1", DiskLatencies: []DiskLatency{{Disk: "/d", Latencies: map[string]float64{}}}}, "samples: missing")
	f(Heartbeat{Node: "h:1", SlowDisks: make([]SlowDisk, MaxDisks+1)}, "slowDisks: 513 entries")
	f(Heartbeat{Node: "h:1", DiskLatencies: make([]DiskLatency, MaxDisks+1)}, "diskLatencies: 513 entries")
}

func TestSlowDiskMaxLatency(t *testing.T) {
	// Reference: SlowDiskTracker.DiskLatency.getMaxLatency, 0 when empty.
	f := func(m map[string]float64, want float64) {
		t.Helper()
		if got := (SlowDisk{Latencies: m}).MaxLatencyMs(); got != want {
			t.Fatalf("MaxLatencyMs(%v) = %v, want %v", m, got, want)
		}
	}
	f(nil, 0)
	f(map[string]float64{}, 0)
	f(map[string]float64{"READ": 1.8, "METADATA": 1.1}, 1.8)
	f(map[string]float64{"WRITE": 0}, 0)
}

// BenchmarkParseHeartbeatDisks times ParseHeartbeat and the
// encoding/json reference on a report heartbeat of 12 volumes measured
// (kind, three operations, load) and one slow, what every agent sends
// once per report interval, alternating in chunks as
// BenchmarkParseHeartbeat does, and reports both and their ratio.
func BenchmarkParseHeartbeatDisks(b *testing.B) {
	hb := Heartbeat{Node: "10.0.0.2:9866", SlowDisks: []SlowDisk{{Disk: "/data/3", Latencies: map[string]float64{"WRITE": 88.2}}}}
	for v := range 12 {
		hb.DiskLatencies = append(hb.DiskLatencies, DiskLatency{Disk: fmt.Sprintf("/data/%d", v), Kind: "hdd",
			Latencies: map[string]float64{"METADATA": 0.41, "READ": 6.25, "WRITE": 4.5},
			Samples:   map[string]int64{"METADATA": 60, "READ": 1200, "WRITE": 900},
			Load:      &DiskLoad{IOPS: 35.5, BytesPerSecond: 4.2e6, Utilization: 0.21}})
	}
	body, err := json.Marshal(hb)
	if err != nil {
		b.Fatal(err)
	}
	compareWithReference(b, body, 100)
}
