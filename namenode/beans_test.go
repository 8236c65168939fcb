package namenode

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/reports"
)

func TestJMX(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	beans := getBeans(t, s, "?qry="+jmx.NameNodeStatusBean)
	if len(beans) != 1 {
		t.Fatalf("qry for one bean gave %d", len(beans))
	}
	// Hadoop's SlowPeersReport is a string of JSON, "[]" when empty.
	if got := attr(t, beans, jmx.NameNodeStatusBean, "SlowPeersReport"); got != "[]" {
		t.Fatalf("empty SlowPeersReport = %#v, want \"[]\"", got)
	}
	if got := attr(t, beans, jmx.NameNodeStatusBean, "HostAndPort"); got != s.Config().Listen {
		t.Fatalf("HostAndPort = %#v, want %s", got, s.Config().Listen)
	}
	// A lone service leads itself, as a Hadoop NameNode without HA is
	// active.
	if got := attr(t, beans, jmx.NameNodeStatusBean, "State"); got != "active" {
		t.Errorf("State of a lone service = %#v, want active", got)
	}
	// What the service does not know is left out: no Kerberos, no blocks,
	// no HA transitions.
	b, _ := jmx.Find(beans, jmx.NameNodeStatusBean)
	for _, name := range []string{"SecurityEnabled", "LastHATransitionTime", "BytesWithFutureGenerationStamps"} {
		if v, ok := b.Attr(name); ok {
			t.Errorf("NameNodeStatus has %s = %#v, want it left out", name, v)
		}
	}

	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866", "10.0.0.6:9866"))
	mustHeartbeat(t, s, report("10.0.0.3:9866", "10.0.0.5:9866"))
	clock.Advance(s.Config().DeadAfter() + time.Second)
	mustHeartbeat(t, s, report("10.0.0.4:9866", "10.0.0.5:9866"))

	beans = getBeans(t, s, "?qry=Hadoop:service=NameNode,*")
	if len(beans) != 4 {
		t.Fatalf("qry=Hadoop:service=NameNode,* gave %d beans", len(beans))
	}
	var inJMX []reports.SlowNode
	if err := json.Unmarshal([]byte(attr(t, beans, jmx.NameNodeStatusBean, "SlowPeersReport").(string)), &inJMX); err != nil {
		t.Fatal(err)
	}
	if want := s.Tracker().Top(clock.Now(), DefaultMaxNodesToReport); !reflect.DeepEqual(inJMX, want) {
		t.Fatalf("SlowPeersReport = %+v, want %+v", inJMX, want)
	}
	for name, want := range map[string]string{"NumLiveDataNodes": "1", "NumDeadDataNodes": "2", "NumStaleDataNodes": "0"} {
		if got := attr(t, beans, jmx.FSNamesystemStateBean, name); got != json.Number(want) {
			t.Errorf("%s = %#v, want %s", name, got, want)
		}
	}
	// An unknown bean answers as Hadoop does: an empty list.
	if beans := getBeans(t, s, "?qry=Hadoop:service=DataNode,name=Nope"); len(beans) != 0 {
		t.Fatalf("unknown bean gave %d beans", len(beans))
	}
}

// State comes from Config.State, the leadership of the service's
// replicas; "" leaves it out.
func TestJMXState(t *testing.T) {
	state := "active"
	s, _, _ := newTestServer(t, func(c *Config) { c.State = func() string { return state } })
	for _, want := range []string{"active", "standby", ""} {
		state = want
		b, _ := jmx.Find(getBeans(t, s, ""), jmx.NameNodeStatusBean)
		got, ok := b.Attr("State")
		if want == "" && ok || want != "" && got != want {
			t.Fatalf("State %q: bean has %#v, %v", want, got, ok)
		}
	}
}

// Reference: DatanodeInfo.isStale (now − lastUpdate ≥ the stale
// interval) and HeartbeatManager, which counts only live nodes.
func TestJMXStaleDataNodes(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) { c.StaleInterval = 30 * time.Second })
	stale := func(want string) {
		t.Helper()
		if got := attr(t, getBeans(t, s, ""), jmx.FSNamesystemStateBean, "NumStaleDataNodes"); got != json.Number(want) {
			t.Fatalf("at %v: NumStaleDataNodes = %v, want %s", clock.Now(), got, want)
		}
	}
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.2:9866"})
	clock.Advance(10 * time.Second)
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.3:9866"})
	clock.Advance(20*time.Second - time.Millisecond)
	stale("0")
	clock.Advance(time.Millisecond) // 30s since 10.0.0.2: stale
	stale("1")
	clock.Advance(10 * time.Second)
	stale("2")
	clock.Advance(s.Config().DeadAfter()) // both dead: no longer stale
	stale("0")
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.2:9866"})
	stale("0")
}

// Reference: FSNamesystem.getLiveNodes and getDeadNodes: JSON strings
// keyed by host:xferPort, lastContact in whole seconds.
func TestJMXNodeInfo(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	info := func() (live, dead map[string]map[string]any) {
		t.Helper()
		beans := getBeans(t, s, "?qry="+NameNodeInfoBean)
		for _, f := range []struct {
			name string
			dst  *map[string]map[string]any
		}{{"LiveNodes", &live}, {"DeadNodes", &dead}} {
			if err := json.Unmarshal([]byte(attr(t, beans, NameNodeInfoBean, f.name).(string)), f.dst); err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
		}
		return live, dead
	}
	if live, dead := info(); len(live) != 0 || len(dead) != 0 {
		t.Fatalf("empty table: live %v, dead %v", live, dead)
	}
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.2:9866", HTTPAddress: "10.0.0.2:9864"})
	mustHeartbeat(t, s, reports.Heartbeat{Node: "[fe80::3]:9866"})
	clock.Advance(2500 * time.Millisecond)
	live, dead := info()
	want := map[string]map[string]any{
		"10.0.0.2:9866": {"infoAddr": "10.0.0.2:9864", "infoSecureAddr": "10.0.0.2:0", "xferaddr": "10.0.0.2:9866",
			"lastContact": 2.0, "adminState": "In Service", "version": "UNKNOWN"},
		// No HTTP port: port 0 in both, Hadoop's "none".
		"[fe80::3]:9866": {"infoAddr": "[fe80::3]:0", "infoSecureAddr": "[fe80::3]:0", "xferaddr": "[fe80::3]:9866",
			"lastContact": 2.0, "adminState": "In Service", "version": "UNKNOWN"},
	}
	if !reflect.DeepEqual(live, want) || len(dead) != 0 {
		t.Fatalf("LiveNodes = %v\nwant %v\nDeadNodes = %v", live, want, dead)
	}
	// The next heartbeat without the field forgets the address.
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.2:9866"})
	if live, _ := info(); live["10.0.0.2:9866"]["infoAddr"] != "10.0.0.2:0" {
		t.Fatalf("infoAddr kept after a heartbeat without one: %v", live)
	}
	clock.Advance(s.Config().DeadAfter() + time.Second)
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.2:9866", HTTPAddress: "dn2.example.com:9864"})
	live, dead = info()
	wantDead := map[string]map[string]any{"[fe80::3]:9866": {"lastContact": float64(int64((s.Config().DeadAfter() + 3500*time.Millisecond) / time.Second)),
		"decommissioned": false, "adminState": "In Service", "xferaddr": "[fe80::3]:9866"}}
	if len(live) != 1 || live["10.0.0.2:9866"]["infoAddr"] != "dn2.example.com:9864" || !reflect.DeepEqual(dead, wantDead) {
		t.Fatalf("LiveNodes = %v\nDeadNodes = %v\nwant %v", live, dead, wantDead)
	}
}

// TestJMXMatchesHadoop checks the beans against a Hadoop 3 NameNode's
// /jmx: the same modelerType, and every attribute we write is Hadoop's,
// with the same JSON type (tag.Hostname aside, which Hadoop gives only
// its metrics2 beans); we leave out exactly what we cannot know of
// NameNodeStatus; LiveNodes and DeadNodes hold Hadoop's fields.
func TestJMXMatchesHadoop(t *testing.T) {
	data, err := os.ReadFile("testdata/hadoop-namenode-jmx.json")
	if err != nil {
		t.Fatal(err)
	}
	hadoop, err := jmx.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	s, clock, _ := newTestServer(t, func(c *Config) { c.SoftwareVersion = "v1.0.0" })
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.9:9866"})
	clock.Advance(s.Config().DeadAfter() + time.Second)
	hb := report("10.0.0.2:9866", "10.0.0.5:9866")
	hb.HTTPAddress = "10.0.0.2:9864"
	mustHeartbeat(t, s, hb)
	ours := getBeans(t, s, "")
	kind := func(v any) string { return fmt.Sprintf("%T", v) }
	sameFields := func(where, ourJSON, hadoopJSON string) {
		t.Helper()
		var o, h map[string]map[string]any
		if json.Unmarshal([]byte(ourJSON), &o) != nil || json.Unmarshal([]byte(hadoopJSON), &h) != nil || len(o) != 1 {
			t.Fatalf("%s: ours %s, Hadoop's %s", where, ourJSON, hadoopJSON)
		}
		var hnode map[string]any
		for _, hnode = range h {
			break
		}
		for _, onode := range o {
			for k, v := range onode {
				hv, ok := hnode[k]
				if !ok || kind(hv) != kind(v) {
					t.Errorf("%s: %s is %s, Hadoop's %s", where, k, kind(v), kind(hv))
				}
			}
		}
	}
	for _, name := range []string{jmx.NameNodeStatusBean, jmx.FSNamesystemStateBean, NameNodeInfoBean, JvmMetricsBean} {
		h, ok := jmx.Find(hadoop, name)
		if !ok {
			t.Fatalf("capture lacks %s", name)
		}
		o, ok := jmx.Find(ours, name)
		if !ok {
			t.Fatalf("we lack %s", name)
		}
		if o.ModelerType != h.ModelerType {
			t.Errorf("%s: modelerType %q, Hadoop %q", name, o.ModelerType, h.ModelerType)
		}
		for _, a := range o.Attrs {
			hv, ok := h.Attr(a.Name)
			if !ok && a.Name != "tag.Hostname" {
				t.Errorf("%s: %s is not in Hadoop's bean", name, a.Name)
				continue
			}
			if hv != nil && kind(hv) != kind(a.Value) {
				t.Errorf("%s: %s is %s, Hadoop's is %s", name, a.Name, kind(a.Value), kind(hv))
			}
		}
		switch name {
		case jmx.NameNodeStatusBean:
			var lacking []string
			for _, a := range h.Attrs {
				if _, ok := o.Attr(a.Name); !ok {
					lacking = append(lacking, a.Name)
				}
			}
			if want := []string{"SecurityEnabled", "LastHATransitionTime", "BytesWithFutureGenerationStamps"}; !slices.Equal(lacking, want) {
				t.Errorf("NameNodeStatus lacks %v, want %v", lacking, want)
			}
		case NameNodeInfoBean:
			for _, attr := range []string{"LiveNodes", "DeadNodes"} {
				ov, _ := o.Attr(attr)
				hv, _ := h.Attr(attr)
				sameFields(attr, ov.(string), hv.(string))
			}
		}
	}
}

// BenchmarkJMX times one whole /jmx document for 1000 DataNodes, each with
// an HTTP port, 50 of them reporting one slow node.
func BenchmarkJMX(b *testing.B) {
	s, _, _ := newTestServer(b, func(c *Config) { c.Logger = slog.New(slog.DiscardHandler) })
	for i := range 1000 {
		hb := reports.Heartbeat{Node: fmt.Sprintf("10.0.%d.%d:9866", i/250, i%250+1), HTTPAddress: fmt.Sprintf("10.0.%d.%d:9864", i/250, i%250+1)}
		if i < 50 {
			hb.SlowPeers = []reports.SlowPeer{{Node: "10.9.9.9:9866", LatencyMs: 40, MedianMs: 2, MADMs: 0.5, UpperLimitMs: 6}}
		}
		mustHeartbeat(b, s, hb)
	}
	b.ReportAllocs()
	for b.Loop() {
		if w := do(b, s, "GET", JMXPath, ""); w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
