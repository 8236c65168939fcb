//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/netlab"
)

// claims polls every replica's /v1/cluster every 50 ms and keeps, for each
// poll, which replicas named themselves leader.
type claims struct {
	mu       sync.Mutex
	polls    int
	double   int                  // polls in which two or more replicas claimed
	twoFor   time.Duration        // the time of those polls (since the poll before)
	first    string               // the first such poll, described
	lastSeen []string             // the claimants of the last poll
	at       time.Time            // of the last poll
	claimed  map[string]time.Time // replica → when its last claim arrived
	done     chan struct{}
	ended    chan struct{}
}

func watchClaims(t *testing.T, client *http.Client, replicas []string) *claims {
	c := &claims{claimed: map[string]time.Time{}, done: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(c.ended)
		for {
			select {
			case <-c.done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			var who []string
			var wg sync.WaitGroup
			var mu sync.Mutex
			for _, r := range replicas {
				wg.Go(func() {
					resp, err := client.Get("http://" + r + ClusterPath)
					if err != nil {
						return
					}
					defer resp.Body.Close()
					var cl struct{ Leader *string }
					if json.NewDecoder(resp.Body).Decode(&cl) == nil && cl.Leader != nil && *cl.Leader == r {
						mu.Lock()
						who = append(who, r)
						c.mu.Lock()
						c.claimed[r] = time.Now()
						c.mu.Unlock()
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			slices.Sort(who)
			c.mu.Lock()
			c.polls++
			if len(who) > 1 {
				c.double++
				if !c.at.IsZero() {
					c.twoFor += time.Since(c.at)
				}
				if c.first == "" {
					c.first = fmt.Sprintf("at %s %v all claimed to lead", time.Now().Format(time.StampMilli), who)
				}
			}
			c.lastSeen, c.at = who, time.Now()
			c.mu.Unlock()
		}
	}()
	t.Cleanup(c.stop)
	return c
}

func (c *claims) stop() {
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	<-c.ended
}

// claimants returns who claimed at the last poll.
func (c *claims) claimants() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.lastSeen)
}

// twoLeaders is how long two or more replicas claimed so far.
func (c *claims) twoLeaders() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.twoFor
}

// waitUntil polls cond every 50 ms until it holds and returns how long
// that took, or false after within.
func waitUntil(within time.Duration, cond func() bool) (time.Duration, bool) {
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			return time.Since(start), false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start), true
}

// lastClaim is when the last answer of r that claimed the lead arrived:
// it claimed no later than that.
func (c *claims) lastClaim(r string) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.claimed[r]
}

// leaderNamedByAll returns the replica every one of among names leader,
// "" when they disagree or one does not answer.
func leaderNamedByAll(client *http.Client, among []string) string {
	who := ""
	for _, r := range among {
		resp, err := client.Get("http://" + r + ClusterPath)
		if err != nil {
			return ""
		}
		var cl struct {
			Leader   *string
			Replicas []string
		}
		err = json.NewDecoder(resp.Body).Decode(&cl)
		resp.Body.Close()
		if err != nil || cl.Leader == nil || (who != "" && *cl.Leader != who) || len(cl.Replicas) != len(among) {
			return ""
		}
		who = *cl.Leader
	}
	return who
}

// hookEvents posts statement starts to the replicas and counts the ones
// each acknowledged (200: stored).
type hookEvents struct {
	client *http.Client
	n      int
	acked  map[string]int
}

func (h *hookEvents) post(t *testing.T, replica string) {
	t.Helper()
	h.n++
	form := url.Values{"server": {"127.0.0.1:10000"}, "hook": {"PRE_EXEC_HOOK"}, "queryId": {fmt.Sprintf("q%d", h.n)},
		"queryStr": {"SELECT+1"}, "jobName": {"j"}, "timestamp": {fmt.Sprint(time.Now().UnixMilli())}}
	resp, err := h.client.PostForm("http://"+replica+hiveserver.SendPath, form)
	if err != nil {
		t.Errorf("hook event to %s: %v", replica, err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("hook event to %s: %s", replica, resp.Status)
		return
	}
	h.acked[replica]++
}

// check fails unless each replica holds every statement it acknowledged.
func (h *hookEvents) check(t *testing.T) {
	t.Helper()
	for replica, n := range h.acked {
		resp, err := h.client.Get("http://" + replica + "/v1/hiveservers")
		if err != nil {
			t.Errorf("%s: %v", replica, err)
			continue
		}
		var list []struct {
			Server  string
			Running int
		}
		json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if len(list) != 1 || list[0].Running != n {
			t.Errorf("%s acknowledged %d statements and runs %+v", replica, n, list)
		}
	}
}

// TestHAPartition runs three replicas and an agent in network namespaces
// around a registry of their own (ZooKeeper, etcd) in a fourth, and makes
// two faults a kernel makes: the leader cut off from the registry, then
// the registry killed and started again on its data. At no 50 ms poll do
// two replicas claim to lead; the cut-off leader stops claiming within
// two thirds of the timeout and another takes over; while the registry
// is away no replica claims and none spins; the agent's heartbeats reach
// every replica throughout; every hook event acknowledged is kept; and
// once a fault ends the replicas agree on one leader again by themselves.
func TestHAPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("runs replicas in network namespaces for about 40 s")
	}
	if err := netlab.Check(); err != nil {
		testenv.Missing(t, err.Error())
	}
	bin := os.Getenv("SLOWPEER_TEST_HA_BIN") // an older build, to measure it
	if bin == "" {
		bin = buildSlowpeer(t)
	}
	for _, kind := range []string{"etcd", "zk"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			haPartition(t, bin, kind)
		})
	}
}

func haPartition(t *testing.T, bin, kind string) {
	timeout := haTimeout(t)
	lab, err := netlab.Create(t.Context(), 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lab.Close(); err != nil {
			t.Errorf("close lab: %v", err)
		}
	})
	const registryHost, agentHost = 0, 4
	client := labClient(lab, agentHost)
	t.Cleanup(client.CloseIdleConnections)
	reg := startLabRegistry(t, lab, registryHost, kind, client)
	registry := kind + "://" + reg.addr + "/slowpeer"
	confDir := t.TempDir()
	var replicas []string
	procs := map[string]*labProc{}
	hosts := map[string]int{}
	for i := 1; i <= 3; i++ {
		addr := lab.Host(i).Addr.String() + ":9871"
		replicas = append(replicas, addr)
		hosts[addr] = i
		procs[addr] = startLabProc(t, lab, i, "replica "+addr, bin, "namenode", "-listen", addr, "-insecure", "-conf", confDir,
			"-store", "sqlite:"+filepath.Join(t.TempDir(), "hive.db"), "-registry", registry, "-hiveservers", "127.0.0.1:10000",
			"-D", "slowpeer.registry.lease.timeout="+timeout.String(), "-D", "dfs.heartbeat.interval=1")
	}
	agent := lab.Host(agentHost).Addr.String() + ":9866"
	agentProc := startLabProc(t, lab, agentHost, "agent", bin, "datanode", "-id", agent, "-namenode", registry, "-conf", confDir,
		"-D", "dfs.heartbeat.interval=1")
	var leader string
	testenv.WaitFor(t, "one leader named by all", 3*timeout+30*time.Second, func() bool {
		leader = leaderNamedByAll(client, replicas)
		return leader != ""
	})
	obs := watchClaims(t, client, replicas)
	beats := watchHeartbeatsWith(t, client, replicas, agent)
	hooks := &hookEvents{client: client, acked: map[string]int{}}
	for _, r := range replicas {
		hooks.post(t, r)
	}

	// The replicas at rest: what the election costs.
	cpu := map[string]float64{}
	for r, p := range procs {
		cpu[r] = p.cpuSeconds()
	}
	rest := time.Now()
	time.Sleep(3 * time.Second)
	t.Logf("%s at rest: %s", kind, usedCores(t, replicas, procs, cpu, time.Since(rest)))

	// The leader cut off from the registry for two timeouts.
	if err := lab.Cut(t.Context(), hosts[leader], registryHost); err != nil {
		t.Fatal(err)
	}
	cut := time.Now() // once both ends drop (the commands take a while on a busy machine)
	next, took := "", time.Duration(0)
	for time.Since(cut) < 2*timeout {
		if c := obs.claimants(); next == "" && len(c) > 0 && slices.IndexFunc(c, func(r string) bool { return r != leader }) >= 0 {
			next, took = c[slices.IndexFunc(c, func(r string) bool { return r != leader })], time.Since(cut)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, r := range replicas {
		hooks.post(t, r)
	}
	healed := time.Now()
	if err := lab.Heal(t.Context(), hosts[leader], registryHost); err != nil {
		t.Fatal(err)
	}
	agreed, ok := waitUntil(3*timeout+60*time.Second, func() bool {
		l := leaderNamedByAll(client, replicas)
		return l != "" && slices.Equal(obs.claimants(), []string{l})
	})
	stopped := obs.lastClaim(leader).Sub(cut)
	t.Logf("%s cut %v: the leader's last claim came %v after the cut, %q led after %v; two leaders for %v; all agreed %v after the heal (timeout %v)",
		kind, healed.Sub(cut).Round(10*time.Millisecond), stopped.Round(10*time.Millisecond), next, took.Round(10*time.Millisecond),
		obs.twoLeaders().Round(10*time.Millisecond), agreed.Round(10*time.Millisecond), timeout)
	switch {
	case stopped > timeout*2/3+250*time.Millisecond:
		t.Errorf("the cut-off leader claimed for %v, more than two thirds of the timeout", stopped)
	case next == "":
		t.Errorf("no other replica led while the leader was cut off")
	case !ok:
		t.Errorf("the replicas did not agree on one leader within %v of the heal", agreed)
	}

	// The registry killed for two timeouts, and started again on its data.
	for r, p := range procs {
		cpu[r] = p.cpuSeconds()
	}
	two := obs.twoLeaders()
	killed := time.Now()
	reg.proc.kill()
	time.Sleep(timeout * 2 / 3)
	claimedAway := 0
	for time.Since(killed) < 2*timeout {
		if len(obs.claimants()) > 0 {
			claimedAway++
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, r := range replicas {
		hooks.post(t, r)
	}
	away := time.Since(killed)
	cores := usedCores(t, replicas, procs, cpu, away)
	if claimedAway > 0 {
		t.Errorf("a replica claimed to lead at %d polls after two thirds of the timeout while the registry was away", claimedAway)
	}
	restarted := time.Now()
	reg.start()
	agreed, ok = waitUntil(3*timeout+60*time.Second, func() bool {
		l := leaderNamedByAll(client, replicas)
		return l != "" && slices.Equal(obs.claimants(), []string{l})
	})
	t.Logf("%s away %v: %s; claims at %d polls from two thirds of the timeout on; two leaders for %v; one leader %v after its start",
		kind, away.Round(10*time.Millisecond), cores, claimedAway, (obs.twoLeaders() - two).Round(10*time.Millisecond),
		time.Since(restarted).Round(10*time.Millisecond))
	if !ok {
		t.Errorf("the replicas did not agree on one leader within %v of the registry's restart", agreed)
	}

	beats.waitMore(t, replicas, 2, 10*time.Second)
	for _, r := range replicas {
		if gap := beats.maxGap(r); gap > 3*time.Second || gap == 0 {
			t.Errorf("the agent's heartbeats at %s paused up to %v (interval 1s)", r, gap)
		}
	}

	// The leader hung (SIGSTOP) for two timeouts, then woken.
	hung := leaderNamedByAll(client, replicas)
	two = obs.twoLeaders()
	if hung != "" {
		procs[hung].cmd.Process.Signal(syscall.SIGSTOP)
		time.Sleep(2 * timeout)
		procs[hung].cmd.Process.Signal(syscall.SIGCONT)
		agreed, ok = waitUntil(3*timeout+60*time.Second, func() bool {
			l := leaderNamedByAll(client, replicas)
			return l != "" && l != hung && slices.Equal(obs.claimants(), []string{l})
		})
		t.Logf("%s SIGSTOP %v of the leader: two leaders for %v; all agreed %v after SIGCONT", kind, 2*timeout,
			(obs.twoLeaders() - two).Round(10*time.Millisecond), agreed.Round(10*time.Millisecond))
		if !ok {
			t.Errorf("the replicas did not agree on a new leader within %v of SIGCONT", agreed)
		}
	}

	obs.stop()
	obs.mu.Lock()
	t.Logf("%s: %d polls, %d with two leaders", kind, obs.polls, obs.double)
	if obs.double > 0 {
		t.Errorf("%s (%d polls of %d)", obs.first, obs.double, obs.polls)
	}
	obs.mu.Unlock()
	hooks.check(t)
	if t.Failed() {
		for _, r := range replicas {
			t.Logf("log of %s:\n%s", r, procs[r].logText())
		}
		t.Logf("log of the agent:\n%s", agentProc.logText())
		t.Logf("log of %s:\n%s", kind, reg.proc.logText())
	}
}

// usedCores says how many cores each replica used since cpu[r] was read,
// d ago, and fails the test for one that used more than 0.3: an election
// loop that spins.
func usedCores(t *testing.T, replicas []string, procs map[string]*labProc, cpu map[string]float64, d time.Duration) string {
	t.Helper()
	var cores []string
	for _, r := range replicas {
		c := (procs[r].cpuSeconds() - cpu[r]) / d.Seconds()
		cores = append(cores, fmt.Sprintf("%.3f", c))
		if c > 0.3 {
			t.Errorf("%s used %.2f cores", r, c)
		}
	}
	return "replicas used " + strings.Join(cores, ", ") + " cores"
}
