package main

import (
	"bytes"
	"testing"
	"time"
)

const suspectsBody = `[{"target":"10.0.0.5:9866","node":"10.0.0.5:9866","kind":"inbound","state":"confirmed",` +
	`"since":"2025-12-01T08:59:45Z","decided":"2025-12-01T08:59:58Z",` +
	`"evidence":{"rule":"inbound","reporters":3,"latencyMs":2.5,"expectedMs":0.21},"rounds":2,` +
	`"probes":[{"agent":"10.0.0.2:9866","node":"10.0.0.5:9866","blocks":3,"round":1,"handed":true,"latencyMs":2.4}]},` +
	`{"target":"link:10.0.0.2:9866|10.0.0.3:9866","node":"10.0.0.2:9866","peer":"10.0.0.3:9866","kind":"link",` +
	`"state":"suspected","since":"2025-12-01T09:00:00Z","evidence":{"rule":"link","reporters":1,"latencyMs":3,"expectedMs":0.2},` +
	`"rounds":0,"probes":[]}]`

// TestSuspectsReport: the report's fast path section, from a
// /v1/suspects answer as the service writes it.
func TestSuspectsReport(t *testing.T) {
	vs, err := parseSuspects([]byte(suspectsBody))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeSuspects(&b, vs, time.Date(2025, 12, 1, 9, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	const want = `Fast path (/v1/suspects): 2; a confirmed one is in the slow set

NODE           PEER           STATE      KIND     ROUNDS  REPORTERS  LATENCY ms  EXPECTED ms  SINCE
10.0.0.5:9866  -              confirmed  inbound  2       3          2.50        0.21         15s ago
10.0.0.2:9866  10.0.0.3:9866  suspected  link     0       1          3.00        0.20         0s ago
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	writeSuspects(&b, nil, time.Now())
	if b.String() != "Fast path (/v1/suspects): no suspect.\n" {
		t.Fatalf("empty: %q", b.String())
	}
	for _, bad := range []string{`{}`, `[] x`, `[{"node":"x","state":"confirmed"}]`,
		`[{"node":"a:1","state":"maybe"}]`, `[{"node":"a:1","state":"cleared","more":1}]`,
		`[{"node":"a:1","state":"cleared","evidence":{"latencyMs":-1}}]`} {
		if _, err := parseSuspects([]byte(bad)); err == nil {
			t.Errorf("parseSuspects(%s) took it", bad)
		}
	}
}

// FuzzParseSuspects: whatever the answer, parseSuspects returns suspects
// with valid nodes and latencies, or an error.
func FuzzParseSuspects(f *testing.F) {
	f.Add([]byte(suspectsBody))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		vs, err := parseSuspects(body)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := writeSuspects(&b, vs, time.Now()); err != nil {
			t.Fatal(err)
		}
	})
}
