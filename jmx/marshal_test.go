package jmx

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// jacksonReporter and jacksonSlowNode are SlowPeerLatencyWithReportingNode
// and SlowPeerJsonReport of Hadoop trunk, whose Double fields may be null.
type jacksonReporter struct {
	Node       string   `json:"ReportingNode"`
	Latency    float64  `json:"ReportedLatency"`
	Median     *float64 `json:"MedianLatency"`
	MAD        *float64 `json:"MadLatency"`
	UpperLimit *float64 `json:"UpperLimitLatency"`
}

type jacksonSlowNode struct {
	Node      string            `json:"SlowNode"`
	Reporters []jacksonReporter `json:"SlowPeerLatencyWithReportingNodes"`
}

func ptr(f float64) *float64 { return &f }

// Reference: SlowPeerTracker.getJson (new ObjectMapper().writer()) over
// SlowPeerJsonReport. The golden file is byte for byte what Jackson
// 2.14.1 (Debian's libjackson2-databind-java, on OpenJDK 17) wrote for the
// same Java objects: Hadoop's two classes, in a TreeSet, through
// new ObjectMapper().writer().
func TestMarshalJacksonGolden(t *testing.T) {
	report := []jacksonSlowNode{
		{Node: "dn5.example.com:9866", Reporters: []jacksonReporter{
			{Node: "10.0.0.2:9867", Latency: 25, Median: ptr(12345678.5), MAD: ptr(1e-4), UpperLimit: ptr(0.001)},
			{Node: "10.0.0.3:9867", Latency: 35.2, Median: ptr(math.NaN()), MAD: nil, UpperLimit: ptr(math.Inf(1))},
		}},
		{Node: "<dn&6>:9866", Reporters: []jacksonReporter{
			{Node: "a\"b\\c\u2028\x01\n:1", Latency: 1e7, Median: ptr(9999999), MAD: ptr(0), UpperLimit: ptr(math.Copysign(0, -1))},
		}},
	}
	got, err := MarshalJackson(report)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden", "slowpeersreport-jackson.json")
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, bytes.TrimSuffix(want, []byte("\n"))) {
		t.Fatalf("MarshalJackson =\n%s\nwant\n%s", got, want)
	}
	if !json.Valid(got) {
		t.Fatalf("not JSON: %s", got)
	}
}

func TestMarshalJackson(t *testing.T) {
	f := func(v any, want string) {
		t.Helper()
		got, err := MarshalJackson(v)
		if err != nil || string(got) != want {
			t.Fatalf("MarshalJackson(%#v) = %s, %v; want %s", v, got, err, want)
		}
	}
	f(nil, `null`)
	f(25.0, `25.0`)
	f(float32(0.1), `0.1`) // Float.toString, not 0.10000000149011612
	f(int64(25), `25`)
	f([]float64{1e-4, 0.001, 12345678.5}, `[1.0E-4,0.001,1.23456785E7]`)
	f([]any{math.NaN(), math.Inf(-1), true, "x"}, `["NaN","-Infinity",true,"x"]`)
	f(map[string]any{"b": 1.5, "a": []int(nil), "<&>": "<&>"}, `{"<&>":"<&>","a":null,"b":1.5}`)
	f("\b\t\n\f\r\x1f\x7f\u2028é\xff", "\"\\b\\t\\n\\f\\r\\u001F\x7f\u2028é\uFFFD\"")
	f(json.Number("1.0E10"), `1.0E10`)
	f(json.RawMessage(` { "a" : [ 1 ] } `), `{"a":[1]}`)
	f([]byte("hi"), `"aGk="`)
	f(struct {
		A float64 `json:"a,omitempty"`
		B *int    `json:"b,omitzero"`
		C int     `json:"-"`
		D string
		e int
	}{D: "d", e: 1}, `{"D":"d"}`)

	bad := func(v any, want string) {
		t.Helper()
		if _, err := MarshalJackson(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("MarshalJackson(%#v) = %v, want an error with %q", v, err, want)
		}
	}
	bad(make(chan int), "cannot write")
	bad(map[int]int{1: 1}, "keys")
	bad(json.Number("NaN"), "not a number")
	bad(json.Number("true"), "not a number")
	bad(json.RawMessage(`{`), "json.RawMessage")
	bad(struct {
		A int `json:"a,string"`
	}{}, `option "string"`)
	type cycle []any
	c := cycle{nil}
	c[0] = c
	bad(c, "nested too deeply")
}

// MarshalJackson agrees with encoding/json on everything but the spelling
// of doubles and the escapes: both read back as the same value.
func FuzzMarshalJackson(f *testing.F) {
	f.Add([]byte(`{"a":[1.5,25,"<x>",null,true,{"b":1e-4}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		out, err := MarshalJackson(v)
		if err != nil {
			t.Fatalf("MarshalJackson(%s): %v", data, err)
		}
		var back any
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("MarshalJackson(%s) = %s, not JSON: %v", data, out, err)
		}
		want, _ := json.Marshal(v)
		got, _ := json.Marshal(back)
		if !bytes.Equal(got, want) {
			t.Fatalf("MarshalJackson(%s) = %s, reads back as %s", data, out, got)
		}
	})
}
