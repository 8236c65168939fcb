package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// The end-to-end cluster runs the local presets, the demo's, so that the
// slow node shows within seconds.
const (
	e2eAgents       = 12
	e2eSlow         = 5 // the index of the slow agent
	e2eSlowDelay    = 50 * time.Millisecond
	e2eMinReporters = 3
	e2ePoll         = 250 * time.Millisecond
)

var (
	// e2eConf are the service's -D options: namenode.DefaultLocalConfig.
	e2eConf = defines(namenodeKeys, namenode.DefaultLocalConfig(), namenode.DefaultConfig())
	// e2eAgentConf are the agents' -D options: datanode.DefaultLocalConfig.
	e2eAgentConf = defines(datanodeKeys, datanode.DefaultLocalConfig(), datanode.DefaultConfig())

	// e2eBound is how long after every agent is live the slow node must
	// be in /slowpeers with e2eMinReporters reporters. An agent's outlier
	// test names a peer only once every peer has the preset's 100 samples:
	// its coverage rounds share 8 packets every 50 ms (160 a second) among
	// its 11 peers, so that takes 100 × 11 / 160 ≈ 6.9 s. The next report
	// then goes at most a report interval R plus a heartbeat H later, and
	// three report intervals after that is 4 × (R + H): 6.9 + 24 ≈ 31 s
	// with the preset's 5s and 1s. Measured with -race on an idle 2-core
	// VM: 14 to 19 s (before the preset took 100 samples, 6 to 11 s).
	e2eBound = e2eSampling(datanode.DefaultLocalConfig()) +
		4*(datanode.DefaultLocalConfig().ReportInterval+datanode.DefaultLocalConfig().HeartbeatInterval)
)

// e2eSampling is how long an agent of cfg with e2eAgents−1 peers takes
// to give every peer its outlier test's minimum of samples.
func e2eSampling(cfg datanode.Config) time.Duration {
	perSecond := float64(cfg.ProbePackets) / cfg.ProbeInterval.Seconds()
	return time.Duration(float64(cfg.MinOutlierDetectionSamples*(e2eAgents-1)) / perSecond * float64(time.Second))
}

// The cluster of TestEndToEnd: starting, watching and stopping it.

// cluster is a service and its agents, each a process.
type cluster struct {
	base   string // the service's base URL
	nn     *proc
	agents []*proc
	live   time.Time       // when every agent was live at the service
	lone   map[string]bool // nodes one peer alone has named, logged once
	client *http.Client
	poll   *time.Ticker
}

// startCluster starts a service and e2eAgents agents, the one at slow
// (if any) with -fault-receive-delay, and returns once the service lists
// every agent as live.
func startCluster(t *testing.T, bin string, slow int) *cluster {
	t.Helper()
	ports := freePorts(t, e2eAgents+1)
	confDir := t.TempDir() // no hdfs-site.xml: defaults and -D only
	c := &cluster{base: "http://" + ports[0], client: &http.Client{Timeout: 5 * time.Second},
		poll: time.NewTicker(e2ePoll), lone: map[string]bool{}}
	t.Cleanup(c.poll.Stop)
	t.Cleanup(c.client.CloseIdleConnections)
	c.nn = startProc(t, bin, "namenode", ports[0], append([]string{"namenode", "-listen", ports[0], "-conf", confDir,
		"-store", "sqlite:" + filepath.Join(t.TempDir(), "hive.db")}, e2eConf...)...)
	c.waitFor(t, "the service to answer", 30*time.Second, func() bool {
		var dn []json.RawMessage
		return c.get(namenode.DataNodesPath, &dn) == nil
	})
	ids := ports[1:]
	for i, id := range ids {
		args := []string{"datanode", "-id", id, "-namenode", c.base, "-peers", strings.Join(ids, ","), "-conf", confDir}
		if i == slow {
			args = append(args, "-fault-receive-delay", e2eSlowDelay.String())
		}
		c.agents = append(c.agents, startProc(t, bin, fmt.Sprintf("agent %d", i), id,
			append(args, e2eAgentConf...)...))
	}
	c.waitFor(t, "every agent to be live", 30*time.Second, func() bool {
		var dn []struct {
			Node  string `json:"node"`
			State string `json:"state"`
		}
		if err := c.get(namenode.DataNodesPath, &dn); err != nil {
			t.Fatalf("/v1/datanodes: %v", err)
		}
		live := 0
		for _, d := range dn {
			if d.State == "live" && slices.Contains(ids, d.Node) {
				live++
			}
		}
		return live == e2eAgents
	})
	c.live = time.Now()
	return c
}

// get reads the JSON answer at path into v.
func (c *cluster) get(path string, v any) error {
	resp, err := c.client.Get(c.base + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s: %s", path, resp.Status, body)
	}
	return json.Unmarshal(body, v)
}

// slowPeers reads /slowpeers, checked as "slowpeer report" checks it.
func (c *cluster) slowPeers(t *testing.T) []reports.SlowNode {
	t.Helper()
	_, nodes, err := fetchReport(context.Background(), plainClient, c.base+namenode.SlowPeersPath)
	if err != nil {
		c.fail(t, "read /slowpeers: %v", err)
	}
	return nodes
}

// slowSet returns the nodes of the service's slow set, as its /metrics
// names them (slowpeer_slow_set_member).
func (c *cluster) slowSet(t *testing.T) []string {
	t.Helper()
	resp, err := c.client.Get(c.base + namenode.MetricsPath)
	if err != nil {
		c.fail(t, "read /metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.fail(t, "read /metrics: %v", err)
	}
	var nodes []string
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, `slowpeer_slow_set_member{node="`); ok {
			if node, _, ok := strings.Cut(rest, `"`); ok {
				nodes = append(nodes, node)
			}
		}
	}
	return nodes
}

// wait waits for the next poll, failing if a process has exited.
func (c *cluster) wait(t *testing.T) {
	t.Helper()
	<-c.poll.C
	for _, p := range append([]*proc{c.nn}, c.agents...) {
		if !p.running() {
			c.fail(t, "%s (%s) exited: %v", p.name, p.id, p.err)
		}
	}
}

// waitFor polls cond until it holds, failing after limit.
func (c *cluster) waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > limit {
			c.fail(t, "no %s after %v", what, limit)
		}
		c.wait(t)
	}
}

// fail ends the test with the message and the logs of the processes.
func (c *cluster) fail(t *testing.T, format string, args ...any) {
	t.Helper()
	var b strings.Builder
	for _, p := range append([]*proc{c.nn}, c.agents...) {
		if p == nil {
			continue
		}
		log := p.logText()
		if len(log) > 4000 {
			log = "…" + log[len(log)-4000:]
		}
		fmt.Fprintf(&b, "\n--- %s (%s) log, tail:\n%s", p.name, p.id, log)
	}
	t.Fatalf(format+"%s", append(args, b.String())...)
}

// checkReporters checks the slow node's entry: reporters are other agents,
// and each measured at least the injected delay, above its upper limit.
func checkReporters(t *testing.T, c *cluster, n reports.SlowNode) {
	t.Helper()
	for _, r := range n.Reporters {
		known := slices.ContainsFunc(c.agents, func(p *proc) bool { return p.id == r.Node })
		if !known || r.Node == n.Node {
			t.Fatalf("reporter %s is not one of the other agents", r.Node)
		}
		if r.LatencyMs < float64(e2eSlowDelay/time.Millisecond) || r.LatencyMs <= r.UpperLimitMs {
			t.Fatalf("%s reported %+v: want at least %v and above the upper limit", r.Node, r, e2eSlowDelay)
		}
	}
}

// checkJMX checks that the Hadoop-shaped /jmx carries the same report.
func (c *cluster) checkJMX(t *testing.T, slow string) {
	t.Helper()
	var doc struct {
		Beans []struct {
			SlowPeersReport *string `json:"SlowPeersReport"`
		} `json:"beans"`
	}
	if err := c.get(namenode.JMXPath+"?qry=Hadoop:service=NameNode,name=NameNodeStatus", &doc); err != nil {
		t.Fatalf("/jmx: %v", err)
	}
	if len(doc.Beans) != 1 || doc.Beans[0].SlowPeersReport == nil {
		t.Fatalf("/jmx NameNodeStatus: %+v", doc)
	}
	var nodes []reports.SlowNode
	if err := json.Unmarshal([]byte(*doc.Beans[0].SlowPeersReport), &nodes); err != nil {
		t.Fatalf("/jmx SlowPeersReport %q: %v", *doc.Beans[0].SlowPeersReport, err)
	}
	if nodes = c.corroborated(t, nodes); len(nodes) != 1 || nodes[0].Node != slow {
		t.Fatalf("/jmx SlowPeersReport %q: want %s alone named by two or more peers", *doc.Beans[0].SlowPeersReport, slow)
	}
}

// tested returns how many agents have delivered a slow-peer report from
// an outlier test that ran (enough peers with enough samples).
func (c *cluster) tested(t *testing.T) int {
	t.Helper()
	n := 0
	for _, p := range c.agents {
		ran := false
		for _, line := range strings.Split(p.logText(), "\n") {
			ran = ran || strings.Contains(line, `msg="slow-peer report delivered"`) && strings.Contains(line, " skipped=false ")
		}
		if ran {
			n++
		}
	}
	return n
}

// corroborated returns the nodes of a /slowpeers report that two or more
// peers name, logging each other node the first time (see TestEndToEnd).
func (c *cluster) corroborated(t *testing.T, nodes []reports.SlowNode) []reports.SlowNode {
	t.Helper()
	return slices.DeleteFunc(nodes, func(n reports.SlowNode) bool {
		if len(n.Reporters) >= 2 {
			return false
		}
		if !c.lone[n.Node] {
			t.Logf("after %v one peer alone names %s: %+v", time.Since(c.live).Round(time.Second), n.Node, n.Reporters)
			c.lone[n.Node] = true
		}
		return true
	})
}

// stop sends SIGTERM to every process and checks that each exits 0 in
// time, as a clean shutdown.
func (c *cluster) stop(t *testing.T) {
	t.Helper()
	all := append(append([]*proc(nil), c.agents...), c.nn)
	for _, p := range all {
		p.cmd.Process.Signal(syscall.SIGTERM)
	}
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for _, p := range all {
		select {
		case <-p.exited:
		case <-timeout.C:
			c.fail(t, "%s still runs 20 s after SIGTERM", p.name)
		}
		if p.err != nil {
			c.fail(t, "%s exited after SIGTERM: %v", p.name, p.err)
		}
	}
}
