package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseHeartbeatAccepts(t *testing.T) {
	f := func(body string, want Heartbeat) {
		t.Helper()
		got, err := ParseHeartbeat([]byte(body))
		if err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decode %s:\n got %#v\nwant %#v", body, got, want)
		}
	}
	peer := SlowPeer{Node: "10.0.0.5:9866", LatencyMs: 35.2, MedianMs: 2.1, MADMs: 0.74, UpperLimitMs: 6.3}
	// DESIGN.md's example heartbeat.
	f(`{"node": "10.0.0.2:9866",
	    "slowPeers": [{"node": "10.0.0.5:9866", "latencyMs": 35.2, "medianMs": 2.1,
	                   "madMs": 0.74, "upperLimitMs": 6.3}]}`,
		Heartbeat{Node: "10.0.0.2:9866", SlowPeers: []SlowPeer{peer}})
	// No slowPeers field, or null: no report (earlier reports stand).
	f(`{"node":"h:1"}`, Heartbeat{Node: "h:1"})
	f(`{"node":"h:1","slowPeers":null}`, Heartbeat{Node: "h:1"})
	// An empty report is a report: it clears the sender's earlier ones.
	f(` {"slowPeers":[],"node":"h:1"} `+"\n", Heartbeat{Node: "h:1", SlowPeers: []SlowPeer{}})
	// Escapes decode as JSON says.
	f(`{"node":"h\u0031:1"}`, Heartbeat{Node: "h1:1"})
	f(`{"node":"[::1]:9866","slowPeers":[{"upperLimitMs":0,"madMs":-0,"medianMs":1E2,"latencyMs":1.5e+3,"node":"\u00e9t\u00e9:2"}]}`,
		Heartbeat{Node: "[::1]:9866", SlowPeers: []SlowPeer{{Node: "été:2", LatencyMs: 1500, MedianMs: 100}}})
	// The agent's HTTP port, when it serves one; "" is the same as absent.
	f(`{"node":"10.0.0.2:9866","httpAddress":"10.0.0.2:9864","slowPeers":[]}`,
		Heartbeat{Node: "10.0.0.2:9866", HTTPAddress: "10.0.0.2:9864", SlowPeers: []SlowPeer{}})
	f(`{"httpAddress":"[::1]:9864","node":"[::1]:9866"}`, Heartbeat{Node: "[::1]:9866", HTTPAddress: "[::1]:9864"})
	f(`{"node":"h:1","httpAddress":""}`, Heartbeat{Node: "h:1"})
	// Numbers that round to zero fit a float64 (ParseFloat, as encoding/json).
	f(`{"node":"h:1","slowPeers":[{"node":"p:1","latencyMs":1e-400,"medianMs":0,"madMs":0,"upperLimitMs":0}]}`,
		Heartbeat{Node: "h:1", SlowPeers: []SlowPeer{{Node: "p:1"}}})
}

func TestParseHeartbeatRejects(t *testing.T) {
	f := func(body, reason, inMsg string) {
		t.Helper()
		_, err := ParseHeartbeat([]byte(body))
		re, ok := errors.AsType[*RejectError](err)
		if !ok {
			t.Fatalf("parse %.80s: got %v, want a RejectError", body, err)
		}
		if re.Reason != reason || !strings.Contains(re.Message, inMsg) {
			t.Fatalf("parse %.80s: got %s %q, want %s with %q", body, re.Reason, re.Message, reason, inMsg)
		}
		if strings.Contains(re.Message, "\n") {
			t.Fatalf("parse %.80s: message %q is not one line", body, re.Message)
		}
	}
	peer := func(fields string) string { return `{"node":"h:1","slowPeers":[` + fields + `]}` }
	const full = `"node":"p:1","latencyMs":1,"medianMs":1,"madMs":1,"upperLimitMs":1`

	f(``, ReasonMalformed, "empty body")
	f(`   `, ReasonMalformed, "empty body")
	f(`nope`, ReasonMalformed, "want an object")
	f(`null`, ReasonMalformed, "want an object")
	f(`[]`, ReasonMalformed, "want an object")
	f(`{"node":"h:1"`, ReasonMalformed, "want ',' or '}'")
	f(`{"node":"h:1",}`, ReasonMalformed, "want a field name")
	f(`{"node" "h:1"}`, ReasonMalformed, "want ':'")
	f(`{"node":"h:1"} {}`, ReasonMalformed, "data after the heartbeat")
	f(`{"node":"h:1"}x`, ReasonMalformed, "data after the heartbeat")
	f(`{"node":"h:1","node":"h:2"}`, ReasonMalformed, "given twice")
	f(`{"node":"h:1","slowPeers":[],"slowPeers":[]}`, ReasonMalformed, "given twice")
	f(`{"node":42}`, ReasonMalformed, "want a string")
	f(`{"node":"h:1","slowPeers":{}}`, ReasonMalformed, "want an array")
	f(`{"node":"h:1","slowPeers":[1]}`, ReasonMalformed, "want an object")
	f(`{"node":"h:1","slowPeers":[`+"{"+full+"}"+`,]}`, ReasonMalformed, "want an object")
	f(`{"node":"h:1","slowPeers":[`+"{"+full+"}"+` {}]}`, ReasonMalformed, "want ',' or ']'")
	f(`{"node":"h`+"\x01"+`:1"}`, ReasonMalformed, "control character")
	f(`{"node":"h`+"\xff"+`:1"}`, ReasonMalformed, "not valid UTF-8")
	f(`{"node":"h\x:1"}`, ReasonMalformed, "bad escape")
	f(`{"node":"h\u12:1"}`, ReasonMalformed, `bad \u escape`)
	f(`{"node":"h:1`, ReasonMalformed, "unterminated string")

	// Field names are exact: no case folding, no unknown fields.
	f(`{"Node":"h:1"}`, ReasonUnknownField, `unknown field "Node"`)
	f(`{"node":"h:1","extra":true}`, ReasonUnknownField, `unknown field "extra"`)
	f(peer(`{`+full+`,"LatencyMs":2}`), ReasonUnknownField, `slowPeers[0]: unknown field "LatencyMs"`)
	f(peer(`{`+full+`,"latencyMs":2}`), ReasonMalformed, "slowPeers[0]: field latencyMs given twice")
	f(peer(`{"node":"p:1","latencyMs":1,"medianMs":1,"madMs":1}`), ReasonInvalid, "missing field upperLimitMs")
	f(peer(`{}`), ReasonInvalid, "slowPeers[0]: missing field node")

	// Node ids (ValidateNode).
	f(`{}`, ReasonInvalid, "missing node id")
	f(`{"node":""}`, ReasonInvalid, "missing node id")
	f(`{"node":"no-port"}`, ReasonInvalid, "not host:port")
	f(`{"node":"h:0"}`, ReasonInvalid, "bad port")
	f(`{"node":"h:65536"}`, ReasonInvalid, "bad port")
	f(peer(`{"node":"p","latencyMs":1,"medianMs":1,"madMs":1,"upperLimitMs":1}`), ReasonInvalid, "slowPeers[0]: node")
	f(peer(`{`+full+`},{`+full+`}`), ReasonInvalid, "named twice")

	// httpAddress: a string holding host:port, once.
	f(`{"node":"h:1","httpAddress":"h"}`, ReasonInvalid, "httpAddress: node id \"h\" is not host:port")
	f(`{"node":"h:1","httpAddress":"h:0"}`, ReasonInvalid, "httpAddress: ")
	f(`{"node":"h:1","httpAddress":null}`, ReasonMalformed, "httpAddress: want a string")
	f(`{"node":"h:1","httpAddress":9864}`, ReasonMalformed, "httpAddress: want a string")
	f(`{"node":"h:1","httpAddress":"h:2","httpAddress":"h:3"}`, ReasonMalformed, "field httpAddress given twice")
	f(`{"node":"h:1","HTTPAddress":"h:2"}`, ReasonUnknownField, `unknown field "HTTPAddress"`)

	// Latencies: JSON has no NaN or infinities, so they come as strings
	// or as numbers too large for a float64; negatives are refused.
	for _, v := range []string{`"NaN"`, `NaN`, `"Infinity"`, `Infinity`, `-Infinity`, `null`, `true`, `"1"`, `1.`, `.5`, `1e`, `+1`, `-`} {
		f(peer(`{"node":"p:1","latencyMs":`+v+`,"medianMs":1,"madMs":1,"upperLimitMs":1}`), ReasonMalformed, "slowPeers[0].latencyMs")
	}
	for _, v := range []string{`1e999`, `-1e999`, `1` + strings.Repeat("0", 400)} {
		f(peer(`{"node":"p:1","latencyMs":1,"medianMs":`+v+`,"madMs":1,"upperLimitMs":1}`), ReasonInvalid, "slowPeers[0].medianMs: ")
	}
	f(peer(`{"node":"p:1","latencyMs":01,"medianMs":1,"madMs":1,"upperLimitMs":1}`), ReasonMalformed, "slowPeers[0]: want ','")
	f(peer(`{"node":"p:1","latencyMs":-0.5,"medianMs":1,"madMs":1,"upperLimitMs":1}`), ReasonInvalid, "negative latency")
	f(peer(`{"node":"p:1","latencyMs":1,"medianMs":1,"madMs":-1,"upperLimitMs":1}`), ReasonInvalid, "madMs: negative")

	// More than MaxSlowPeers peers: refused before decoding them all.
	f(manyPeers(MaxSlowPeers+1), ReasonTooManyPeers, "more than 10000")
	if _, err := ParseHeartbeat([]byte(manyPeers(MaxSlowPeers))); err != nil {
		t.Fatalf("decode %d peers: %v", MaxSlowPeers, err)
	}
}

// manyPeers returns a heartbeat of n distinct, valid slow peers.
func manyPeers(n int) string {
	var b strings.Builder
	b.WriteString(`{"node":"h:1","slowPeers":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"node":"p%d:%d","latencyMs":9,"medianMs":1,"madMs":1,"upperLimitMs":3}`, i/60000, 1+i%60000)
	}
	b.WriteString(`]}`)
	return b.String()
}

// referenceDecode is the naive reference: encoding/json, strict about
// unknown fields and trailing data, then Validate.
func referenceDecode(data []byte) (Heartbeat, error) {
	var hb Heartbeat
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&hb); err != nil {
		return Heartbeat{}, err
	}
	if _, err := dec.Token(); err == nil {
		return Heartbeat{}, errors.New("trailing data")
	}
	return hb, hb.Validate()
}

// FuzzParseHeartbeat checks that ParseHeartbeat never panics, that it
// returns either a RejectError with a one-line message or a heartbeat that
// passes Validate, and that whatever it accepts encoding/json accepts too,
// with the same value.
func FuzzParseHeartbeat(f *testing.F) {
	seeds, err := os.ReadDir("testdata/heartbeats")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range seeds {
		b, err := os.ReadFile("testdata/heartbeats/" + e.Name())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"node":"h:1","slowPeers":[{"node":"p:1","latencyMs":1e999,"medianMs":1,"madMs":1,"upperLimitMs":1}]}`))
	f.Add([]byte(`{"node":"h\ud800:1"}`))
	f.Add([]byte(`{"node":"h:1","peerLatencies":[{"node":"p:1","latencyMs":1,"samples":12}]}`))
	f.Add([]byte(`{"node":"h:1","peerLatencies":[{"node":"p:1","latencyMs":1,"samples":1.0}]}`))
	f.Add([]byte(`{"node":"h:1","peerLatencies":[{"node":"p:1","latencyMs":1,"samples":-9223372036854775809}]}`))
	f.Add([]byte(`{"node":"h\ud83d\ude00:1","slowPeers":null}`))
	f.Add([]byte(`{"node":"h:1","slowDisks":[{"disk":"/d","latencies":{"READ":1,"READ":2}}]}`))
	f.Add([]byte(`{"node":"h:1","diskLatencies":[{"disk":"/d","kind":"x","latencies":{"READ":1},"samples":{"READ":1},"load":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		hb, err := ParseHeartbeat(data)
		if err != nil {
			re, ok := errors.AsType[*RejectError](err)
			if !ok || re.Reason == "" || !slices.Contains(RejectReasons(), re.Reason) || strings.ContainsAny(re.Message, "\r\n") {
				t.Fatalf("decode %q: bad error %#v", data, err)
			}
			return
		}
		if err := hb.Validate(); err != nil {
			t.Fatalf("decode %q: accepted an invalid heartbeat: %v", data, err)
		}
		ref, err := referenceDecode(data)
		if err != nil {
			t.Fatalf("decode %q: accepted what encoding/json refuses: %v", data, err)
		}
		if !reflect.DeepEqual(hb, ref) {
			t.Fatalf("decode %q:\n got %#v\n ref %#v", data, hb, ref)
		}
	})
}

// BenchmarkParseHeartbeat times ParseHeartbeat and the encoding/json
// reference on the same typical body (5 slow peers, as an agent's
// json.Marshal writes them), alternating in chunks so both see the same
// machine, and reports both and their ratio. One op is one decode with
// each.
func BenchmarkParseHeartbeat(b *testing.B) {
	body, err := os.ReadFile("testdata/heartbeats/five-peers.json")
	if err != nil {
		b.Fatal(err)
	}
	compareWithReference(b, body, 1000)
}

// compareWithReference times ParseHeartbeat and referenceDecode on body,
// alternating in chunks of chunk decodes so that both see the same
// machine, and reports both and their ratio. One op is one decode with
// each.
func compareWithReference(b *testing.B, body []byte, chunk int) {
	var ours, ref time.Duration
	b.ReportAllocs()
	b.SetBytes(int64(2 * len(body)))
	for n := b.N; n > 0; n -= chunk {
		k := min(n, chunk)
		start := time.Now()
		for range k {
			if _, err := ParseHeartbeat(body); err != nil {
				b.Fatal(err)
			}
		}
		mid := time.Now()
		for range k {
			if _, err := referenceDecode(body); err != nil {
				b.Fatal(err)
			}
		}
		ours, ref = ours+mid.Sub(start), ref+time.Since(mid)
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "parse-ns/op")
	b.ReportMetric(float64(ref.Nanoseconds())/float64(b.N), "encoding/json-ns/op")
	b.ReportMetric(float64(ref)/float64(ours), "speedup")
}
