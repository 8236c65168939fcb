package namenode

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

func gzipBytes(t testing.TB, body []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, reports.GzipLevel)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(body)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// loadedHeartbeat is a heartbeat with everything an agent sends at once:
// a report of peers peerLatencies (one slow), and recent latencies.
func loadedHeartbeat(node string, i, peers int) reports.Heartbeat {
	peer := func(k int) string { return fmt.Sprintf("10.1.%d.%d:9866", k/250, 1+k%250) }
	hb := reports.Heartbeat{Node: node, HTTPAddress: strings.TrimSuffix(node, "9866") + "9864",
		SlowPeers: []reports.SlowPeer{{Node: peer(i + 1), LatencyMs: 41.5, MedianMs: 2.1, MADMs: 0.7, UpperLimitMs: 6.3}}}
	for k := range peers {
		ms := 1.5 + float64(k%10)/10
		if k == 0 {
			ms = 41.5
		}
		hb.PeerLatencies = append(hb.PeerLatencies, reports.PeerLatency{Node: peer(i + 1 + k), LatencyMs: ms, Samples: 1840 + int64(k)})
		if k < 14 {
			hb.RecentLatencies = append(hb.RecentLatencies, reports.RecentLatency{Node: peer(i + 1 + k), LatencyMs: ms, Blocks: 1})
		}
	}
	return hb
}

// A heartbeat sent compressed leaves the service in the state the same
// heartbeat sent plain does, and gets the same answer; every answer says
// the service takes gzip.
func TestHeartbeatGzipSameState(t *testing.T) {
	plain, clockP, _ := newTestServer(t, nil)
	zipped, clockZ, _ := newTestServer(t, nil)
	var hbs []reports.Heartbeat
	for i := range 12 {
		node := fmt.Sprintf("10.1.0.%d:9866", 1+i)
		hbs = append(hbs, reports.Heartbeat{Node: node}, loadedHeartbeat(node, i, 20+i))
	}
	for round := range 3 {
		for _, hb := range hbs {
			body, err := json.Marshal(hb)
			if err != nil {
				t.Fatal(err)
			}
			wp := do(t, plain, "POST", HeartbeatPath, string(body))
			wz := do(t, zipped, "POST", HeartbeatPath, string(gzipBytes(t, body)), "Content-Encoding", "gzip")
			if wp.Code != http.StatusOK || wz.Code != wp.Code || wz.Body.String() != wp.Body.String() {
				t.Fatalf("round %d, %s: plain %d %s, gzip %d %s", round, hb.Node, wp.Code, wp.Body, wz.Code, wz.Body)
			}
			for _, w := range []*httptest.ResponseRecorder{wp, wz} {
				if !reports.AcceptsGzip(w.Header()) {
					t.Fatalf("answer without Accept-Encoding: gzip: %v", w.Header())
				}
			}
		}
		clockP.Advance(3 * time.Second)
		clockZ.Advance(3 * time.Second)
		plain.StepSuspects(clockP.Now())
		zipped.StepSuspects(clockZ.Now())
		plain.Diagnose(clockP.Now())
		zipped.Diagnose(clockZ.Now())
	}
	if p, z := snapshot(plain, clockP.Now()), snapshot(zipped, clockZ.Now()); !reflect.DeepEqual(p, z) {
		t.Fatalf("plain %+v\ngzip  %+v", p, z)
	}
	if len(snapshot(plain, clockP.Now()).Slow) == 0 {
		t.Fatal("the heartbeats' reports named nobody slow")
	}
	for _, path := range []string{SlowPeersPath, DataNodesPath, SuspectsPath, "/v1/slownodes", "/v1/state"} {
		p, z := do(t, plain, "GET", path, ""), do(t, zipped, "GET", path, "")
		if p.Code != http.StatusOK || z.Code != p.Code || z.Body.String() != p.Body.String() {
			t.Errorf("%s: plain %d %.300s\ngzip %d %.300s", path, p.Code, p.Body, z.Code, z.Body)
		}
	}
}

// A compressed heartbeat that inflates past MaxHeartbeatBytes (a gzip
// bomb), one that is not gzip, and one in another coding are refused
// with 413, 400 and 415, each counted, and change nothing; a body of
// exactly MaxHeartbeatBytes once inflated gets in.
func TestHeartbeatGzipRefused(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866"))
	good, err := json.Marshal(report("10.0.0.9:9866", "10.0.0.5:9866"))
	if err != nil {
		t.Fatal(err)
	}
	zgood := gzipBytes(t, good)
	exact := func(n int) []byte { // a heartbeat of n bytes: spaces before its closing brace
		head := `{"node":"10.0.0.9:9866"`
		return []byte(head + strings.Repeat(" ", n-len(head)-1) + "}")
	}
	bomb := gzipBytes(t, exact(MaxHeartbeatBytes+1))
	if len(bomb) > 4096 {
		t.Fatalf("the bomb is %d bytes compressed", len(bomb))
	}
	f := func(name string, status int, reason, inMsg string, body []byte, coding ...string) {
		t.Helper()
		before := snapshot(s, clock.Now())
		rejected := s.metrics.rejected[reason].Get()
		w := do(t, s, "POST", HeartbeatPath, string(body), append([]string{"Content-Encoding"}, coding...)...)
		wantError(t, w, status, inMsg)
		if !reports.AcceptsGzip(w.Header()) {
			t.Fatalf("%s: refusal without Accept-Encoding: gzip: %v", name, w.Header())
		}
		if after := snapshot(s, clock.Now()); !reflect.DeepEqual(before, after) {
			t.Fatalf("%s: refused heartbeat changed the state:\nbefore %+v\nafter  %+v", name, before, after)
		}
		if got := s.metrics.rejected[reason].Get(); got != rejected+1 {
			t.Fatalf("%s: rejected{reason=%s} went from %d to %d", name, reason, rejected, got)
		}
	}
	f("gzip bomb", 413, reasonTooLarge, "once inflated", bomb, "gzip")
	f("not gzip", 400, reports.ReasonMalformed, "gzip body", good, "gzip")
	f("truncated", 400, reports.ReasonMalformed, "gzip body", zgood[:len(zgood)-5], "gzip")
	f("bad checksum", 400, reports.ReasonMalformed, "gzip body", append(zgood[:len(zgood)-8:len(zgood)-8], 1, 2, 3, 4, 0, 0, 0, 0), "gzip")
	f("garbage after", 400, reports.ReasonMalformed, "gzip body", append(append([]byte(nil), zgood...), "junk"...), "gzip")
	f("empty", 400, reports.ReasonMalformed, "empty gzip body", nil, "gzip")
	f("inflates to no JSON", 400, reports.ReasonMalformed, "want an object", gzipBytes(t, []byte("slow!")), "gzip")
	f("brotli", 415, reasonUnsupportedEncoding, "want gzip or none", good, "br")
	f("deflate", 415, reasonUnsupportedEncoding, "want gzip or none", good, "deflate")
	f("gzip twice", 415, reasonUnsupportedEncoding, "want gzip or none", gzipBytes(t, zgood), "gzip, gzip")

	for _, c := range []struct {
		name, coding string
		body         []byte
	}{
		{"identity", "identity", good},
		{"gzip", "gzip", zgood},
		{"x-gzip", "x-gzip", zgood},
		{"GZIP", "GZIP", zgood},
		{"exactly the limit", "gzip", gzipBytes(t, exact(MaxHeartbeatBytes))},
	} {
		if w := do(t, s, "POST", HeartbeatPath, string(c.body), "Content-Encoding", c.coding); w.Code != http.StatusOK {
			t.Errorf("%s: %d %s", c.name, w.Code, w.Body)
		}
	}
}

// FuzzHeartbeatGzip reads any bytes as a gzip heartbeat body: the result
// is what reading the stream with compress/gzip gives, within
// MaxHeartbeatBytes, or a refusal for 400 or 413 that says why.
func FuzzHeartbeatGzip(f *testing.F) {
	good, _ := json.Marshal(loadedHeartbeat("10.0.0.9:9866", 0, 8))
	f.Add(gzipBytes(f, good))
	f.Add(gzipBytes(f, bytes.Repeat([]byte(" "), MaxHeartbeatBytes+1)))
	f.Add(append(gzipBytes(f, []byte(`{"node":`)), gzipBytes(f, []byte(`"10.0.0.9:9866"}`))...))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		req := httptest.NewRequest("POST", HeartbeatPath, bytes.NewReader(data))
		req.Header.Set("Content-Encoding", "gzip")
		var buf bytes.Buffer
		err := readBody(&buf, httptest.NewRecorder(), req)

		var want []byte
		zr, refErr := gzip.NewReader(bytes.NewReader(data))
		if refErr == nil {
			want, refErr = io.ReadAll(io.LimitReader(zr, MaxHeartbeatBytes+1))
		}
		switch {
		case refErr != nil:
			re, ok := errors.AsType[*reports.RejectError](err)
			if !ok || re.Reason != reports.ReasonMalformed {
				t.Fatalf("compress/gzip: %v; readBody: %v, want a malformed refusal", refErr, err)
			}
		case len(want) > MaxHeartbeatBytes:
			re, ok := errors.AsType[*reports.RejectError](err)
			if !ok || re.Reason != reasonTooLarge {
				t.Fatalf("inflates to more than %d bytes; readBody: %v, want too large", MaxHeartbeatBytes, err)
			}
		case err != nil:
			t.Fatalf("compress/gzip reads %d bytes; readBody: %v", len(want), err)
		case !bytes.Equal(buf.Bytes(), want):
			t.Fatalf("readBody gave %d bytes, compress/gzip %d", buf.Len(), len(want))
		}
	})
}

// BenchmarkHeartbeatGzip is the handler with the heartbeat an agent sends
// once a report interval (64 peerLatencies and 14 recent latencies, 5.5
// KB) and a heartbeat of 14 recent latencies alone, plain and gzip.
func BenchmarkHeartbeatGzip(b *testing.B) {
	for _, kind := range []string{"report", "recent"} {
		for _, coding := range []string{"identity", "gzip"} {
			b.Run(kind+"/"+coding, func(b *testing.B) {
				s, _, _ := newTestServer(b, nil)
				h := s.Handler()
				bodies := make([][]byte, 1000)
				wire := 0
				for i := range bodies {
					node := fmt.Sprintf("10.2.%d.%d:9866", i/250, 1+i%250)
					hb := loadedHeartbeat(node, i, 64)
					if kind == "recent" {
						hb = reports.Heartbeat{Node: node, HTTPAddress: hb.HTTPAddress, RecentLatencies: hb.RecentLatencies}
					}
					body, err := json.Marshal(hb)
					if err != nil {
						b.Fatal(err)
					}
					if coding == "gzip" {
						body = gzipBytes(b, body)
					}
					bodies[i] = body
					wire += len(body)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					req := httptest.NewRequest("POST", HeartbeatPath, bytes.NewReader(bodies[i%len(bodies)]))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Content-Encoding", coding)
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Fatal(w.Code, w.Body)
					}
					i++
				}
				b.ReportMetric(float64(wire)/float64(len(bodies)), "wireB/op")
			})
		}
	}
}
