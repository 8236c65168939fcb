package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

const slowSetBody = `{"nodes":[{"node":"10.0.0.5:9866","kind":"outbound","pairs":11,"latencyMs":50.28,"medianMs":0.07,` +
	`"since":1764576000000,"foundSince":1764575820000,"lastFound":1764579540000,"httpAddress":"10.0.0.5:9864",` +
	`"history":[{"at":1764576000000,"pairs":11,"latencyMs":50.28}]}],` +
	`"links":[{"node":"10.0.0.2:9866","peer":"10.0.0.3:9866","kind":"link","pairs":1,"latencyMs":9,"medianMs":0.1,` +
	`"since":1764579000000,"foundSince":1764578800000,"lastFound":1764579600000,"history":[]}]}`

// TestSlowSetReport: the report's slow set section, from a /v1/slowset
// answer as the service writes it.
func TestSlowSetReport(t *testing.T) {
	doc, err := parseSlowSet([]byte(slowSetBody))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	now := time.UnixMilli(1764579600000)
	if err := writeSlowSet(&b, doc, now); err != nil {
		t.Fatal(err)
	}
	const want = `Slow set (/v1/slowset): 1 nodes, 1 links; the nodes get no new Hive work and alert

NODE           KIND      PEER OR RACK   PAIRS  LATENCY ms  MEDIAN ms  IN SINCE    LAST FOUND
10.0.0.5:9866  outbound  -              11     50.28       0.07       1h0m0s ago  1m0s ago
10.0.0.2:9866  link      10.0.0.3:9866  1      9.00        0.10       10m0s ago   0s ago
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	writeSlowSet(&b, slowSetDoc{Nodes: []slowSetEntry{}, Links: []slowSetEntry{}}, now)
	if b.String() != "Slow set (/v1/slowset): empty; no alert fires and no work is moved.\n" {
		t.Fatalf("empty: %q", b.String())
	}
	for _, bad := range []string{`{}`, `{"nodes":[],"links":[]} x`, `{"nodes":[{"node":"x"}],"links":[]}`,
		`{"nodes":[],"links":[],"more":1}`, `{"nodes":[{"node":"a:1","latencyMs":-1}],"links":[]}`} {
		if _, err := parseSlowSet([]byte(bad)); err == nil {
			t.Errorf("parseSlowSet(%s) took it", bad)
		}
	}
}

// TestAdminReportTable: the -report table joins the table, the slow set
// and the raw reports by node.
func TestAdminReportTable(t *testing.T) {
	rows, err := parseDataNodes([]byte(`[{"node":"10.0.0.5:9866","state":"live","lastHeartbeat":1764579597000,"httpAddress":"10.0.0.5:9864"},` +
		`{"node":"10.0.0.6:9866","state":"excluded","lastHeartbeat":1764579000000}]`))
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := parseSlowSet([]byte(slowSetBody))
	rows[0].SlowSet, rows[0].Reporters = &doc.Nodes[0], 3
	var b bytes.Buffer
	if err := writeAdminReport(&b, adminReport{DataNodes: rows, SlowLinks: doc.Links}, time.UnixMilli(1764579600000)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"DataNodes: 2 (1 live, 0 stale, 0 dead, 1 excluded); slow set: 1 nodes, 1 links\n",
		"10.0.0.5:9866  live      3s ago          outbound  11     1h0m0s ago  3          10.0.0.5:9864\n",
		"10.0.0.6:9866  excluded  10m0s ago       -         -      -           0          -\n",
		"10.0.0.2:9866  link",
	} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("report lacks %q:\n%s", want, b.String())
		}
	}
	for _, bad := range []string{`{}`, `[{"node":"a:1","state":"asleep","lastHeartbeat":1}]`, `[{"node":"a","state":"live"}]`, `null`} {
		if _, err := parseDataNodes([]byte(bad)); err == nil {
			t.Errorf("parseDataNodes(%s) took it", bad)
		}
	}
}

func FuzzParseSlowSet(f *testing.F) {
	f.Add(slowSetBody)
	f.Add(`{"nodes":[],"links":[]}`)
	f.Fuzz(func(t *testing.T, body string) {
		doc, err := parseSlowSet([]byte(body))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := writeSlowSet(&b, doc, time.Now()); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzParseDataNodes(f *testing.F) {
	f.Add(`[{"node":"10.0.0.5:9866","state":"live","lastHeartbeat":1764579597000,"httpAddress":"10.0.0.5:9864"}]`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, body string) {
		rows, err := parseDataNodes([]byte(body))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := writeAdminReport(&b, adminReport{DataNodes: rows}, time.Now()); err != nil {
			t.Fatal(err)
		}
	})
}
