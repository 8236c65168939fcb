package reports

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParsePeerLatencies(t *testing.T) {
	ok := func(body string, want []PeerLatency) {
		t.Helper()
		hb, err := ParseHeartbeat([]byte(body))
		if err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		if !reflect.DeepEqual(hb.PeerLatencies, want) {
			t.Fatalf("decode %s: peerLatencies %#v, want %#v", body, hb.PeerLatencies, want)
		}
		ref, err := referenceDecode([]byte(body))
		if err != nil || !reflect.DeepEqual(ref, hb) {
			t.Fatalf("decode %s: encoding/json gives %#v, %v; we %#v", body, ref, err, hb)
		}
	}
	// DESIGN.md's example entry.
	ok(`{"node":"10.0.0.2:9866","peerLatencies":[{"node": "10.0.0.5:9866", "latencyMs": 2.3, "samples": 1840}]}`,
		[]PeerLatency{{Node: "10.0.0.5:9866", LatencyMs: 2.3, Samples: 1840}})
	ok(`{"node":"h:1"}`, nil)
	ok(`{"peerLatencies":null,"node":"h:1"}`, nil)
	ok(`{"node":"h:1","peerLatencies":[]}`, []PeerLatency{})
	ok(`{"node":"h:1","peerLatencies":[{"samples":-0,"latencyMs":0,"node":"p:2"},{"node":"q:3","latencyMs":1e2,"samples":9007199254740993}]}`,
		[]PeerLatency{{Node: "p:2"}, {Node: "q:3", LatencyMs: 100, Samples: 9007199254740993}})

	bad := func(body, reason, inMsg string) {
		t.Helper()
		_, err := ParseHeartbeat([]byte(body))
		re, isReject := errors.AsType[*RejectError](err)
		if !isReject || re.Reason != reason || !strings.Contains(re.Message, inMsg) {
			t.Fatalf("parse %.100s: got %v, want %s with %q", body, err, reason, inMsg)
		}
	}
	entry := func(fields string) string { return `{"node":"h:1","peerLatencies":[` + fields + `]}` }
	const full = `"node":"p:1","latencyMs":1,"samples":5`
	bad(`{"node":"h:1","peerLatencies":[],"peerLatencies":[]}`, ReasonMalformed, "given twice")
	bad(`{"node":"h:1","peerLatencies":{}}`, ReasonMalformed, "peerLatencies: want an array")
	bad(entry(`{`+full+`} {}`), ReasonMalformed, "want ',' or ']'")
	bad(entry(`{`+full+`,"Samples":1}`), ReasonUnknownField, `peerLatencies[0]: unknown field "Samples"`)
	bad(entry(`{`+full+`,"samples":1}`), ReasonMalformed, "peerLatencies[0]: field samples given twice")
	bad(entry(`{"node":"p:1","latencyMs":1}`), ReasonInvalid, "peerLatencies[0]: missing field samples")
	bad(entry(`{"node":"p:1","latencyMs":1,"samples":1.5}`), ReasonMalformed, "peerLatencies[0].samples: want a whole number")
	bad(entry(`{"node":"p:1","latencyMs":1,"samples":1e3}`), ReasonMalformed, "peerLatencies[0].samples")
	bad(entry(`{"node":"p:1","latencyMs":1,"samples":"5"}`), ReasonMalformed, "peerLatencies[0].samples")
	bad(entry(`{"node":"p:1","latencyMs":1,"samples":99999999999999999999}`), ReasonInvalid, "does not fit an int64")
	bad(entry(`{"node":"p:1","latencyMs":1,"samples":-1}`), ReasonInvalid, "samples: negative count")
	bad(entry(`{"node":"p:1","latencyMs":-1,"samples":1}`), ReasonInvalid, "peerLatencies[0]: latencyMs: negative")
	bad(entry(`{"node":"p:1","latencyMs":1e999,"samples":1}`), ReasonInvalid, "peerLatencies[0].latencyMs")
	bad(entry(`{"node":"p","latencyMs":1,"samples":1}`), ReasonInvalid, "peerLatencies[0]: node")
	bad(entry(`{`+full+`},{`+full+`}`), ReasonInvalid, "peerLatencies[1]: node \"p:1\" named twice")

	var b strings.Builder
	for i := range MaxPeerLatencies + 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"node":"p%d:%d","latencyMs":1,"samples":1}`, i/60000, 1+i%60000)
	}
	bad(entry(b.String()), ReasonTooManyPeers, "peerLatencies: more than 10000")
}
