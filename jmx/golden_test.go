package jmx

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// beansForGolden is a NameNode-side /jmx as slowpeer serves it.
func beansForGolden() []Bean {
	report := `[{"SlowNode":"10.0.0.5:9866","SlowPeerLatencyWithReportingNodes":[` +
		`{"ReportingNode":"10.0.0.2:9866","ReportedLatency":35.2,"MedianLatency":2.1,"MadLatency":0.74,"UpperLimitLatency":6.3}]}]`
	return []Bean{
		{
			Name:        NameNodeStatusBean,
			ModelerType: "org.apache.hadoop.hdfs.server.namenode.NameNode",
			Attrs: []Attr{
				{"NNRole", "NameNode"},
				{"HostAndPort", "nn1.example.com:8020"},
				{"SecurityEnabled", false},
				{"LastHATransitionTime", int64(0)},
				{"BytesWithFutureGenerationStamps", int64(0)},
				{"SlowPeersReport", report},
				{"SlowDisksReport", nil},
				{"State", "active"},
			},
		},
		{
			Name:        FSNamesystemStateBean,
			ModelerType: "org.apache.hadoop.hdfs.server.namenode.FSNamesystem",
			Attrs: []Attr{
				{"FSState", "Operational"},
				{"NumLiveDataNodes", 11},
				{"NumDeadDataNodes", 1},
				{"TotalLoad", 37},
				{"TopUserOpCounts", `{"timestamp":"2024-05-01T10:41:23+0000","windows":[]}`},
			},
		},
		{
			Name:        "java.lang:type=Memory",
			ModelerType: "sun.management.MemoryImpl",
			Attrs: []Attr{
				{"HeapMemoryUsage", map[string]any{"used": 327845672, "max": 3817865216, "init": 268435456, "committed": 1052770304}},
				{"Verbose", false},
				{"InputArguments", []string{"-Xmx4g", "-Dproc_namenode"}},
				{"Empty", []any{}},
				{"EmptyObject", map[string]any{}},
				{"Ratio", 0.25},
			},
		},
	}
}

func TestWriteGolden(t *testing.T) {
	f := func(file, target string) {
		t.Helper()
		rec := serve(http.MethodGet, target, beansForGolden())
		path := filepath.Join("testdata", "golden", file)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, rec.Body.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(rec.Body.Bytes(), want) {
			t.Fatalf("GET %s differs from %s:\n%s", target, path, rec.Body)
		}
	}
	f("all.json", "/jmx")
	f("namenode-status.json", "/jmx?qry=Hadoop:service=NameNode,name=NameNodeStatus")
	f("get-slowpeersreport.json", "/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus::SlowPeersReport")
	f("no-beans.json", "/jmx?qry=Hadoop:service=DataNode,*")
	f("bad-qry.json", "/jmx?qry=Hadoop:service")
}

// A Hadoop capture read by Parse and written again by Write comes back
// byte for byte: same beans, attributes, order, numbers and layout.
func TestWriteReproducesHadoopCaptures(t *testing.T) {
	for _, file := range []string{"namenode-jmx.json", "datanode-jmx.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		beans, err := Parse(data)
		if err != nil {
			t.Fatalf("Parse(%s): %v", file, err)
		}
		rec := serve(http.MethodGet, "/jmx", beans)
		if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), data) {
			t.Fatalf("Write(Parse(%s)) = %d, differs from the capture:\n%s", file, rec.Code, rec.Body)
		}
		again, err := Parse(rec.Body.Bytes())
		if err != nil || !reflect.DeepEqual(again, beans) {
			t.Fatalf("Parse(Write(Parse(%s))) differs: %v", file, err)
		}
	}
}

// Write → Parse gives back what was written, with numbers as json.Number.
func TestWriteParseRoundTrip(t *testing.T) {
	beans := beansForGolden()
	rec := serve(http.MethodGet, "/jmx", beans)
	got, err := Parse(rec.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(got), names(beans)) {
		t.Fatalf("names %q, want %q", names(got), names(beans))
	}
	for i, b := range beans {
		if got[i].ModelerType != b.ModelerType || len(got[i].Attrs) != len(b.Attrs) {
			t.Fatalf("bean %s came back as %+v", b.Name, got[i])
		}
		for j, a := range b.Attrs {
			want, _ := json.Marshal(a.Value)
			back, _ := json.Marshal(got[i].Attrs[j].Value)
			if got[i].Attrs[j].Name != a.Name || !bytes.Equal(want, back) {
				t.Fatalf("%s.%s came back as %s=%s, want %s", b.Name, a.Name, got[i].Attrs[j].Name, back, want)
			}
		}
	}
	live, _ := got[1].Attr("NumLiveDataNodes")
	if live != json.Number("11") {
		t.Fatalf("NumLiveDataNodes came back as %#v", live)
	}
}

// Over a real loopback connection, as a client sees it.
func TestWriteOverHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Write(w, r, servletBeans)
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || string(body) != beansDoc(stateDoc) || resp.Header.Get("Content-Type") != ContentType {
		t.Fatalf("GET = %d %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	resp, err = http.Head(srv.URL + "/jmx")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(beansDoc(statusDoc, stateDoc))) {
		t.Fatalf("HEAD = %d, Content-Length %d", resp.StatusCode, resp.ContentLength)
	}
}

func BenchmarkWrite(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "namenode-jmx.json"))
	if err != nil {
		b.Fatal(err)
	}
	beans, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	for _, target := range []string{"/jmx", "/jmx?qry=Hadoop:service=NameNode,name=NameNodeStatus"} {
		b.Run(target, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, target, nil)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				Write(w, r, beans)
			}
		})
	}
}
