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
// poll, when it was sent and which replicas named themselves leader. A
// claim in an answer shows the replica led at some instant between the
// poll's sending and its answer, so only a poll sent after a deadline
// shows a claim after it: a claim answered after the deadline to a poll
// sent before may be older than the deadline.
type claims struct {
	mu     sync.Mutex
	log    []poll
	double int           // polls in which two or more replicas claimed
	twoFor time.Duration // the time of those polls (since the poll before)
	first  string        // the first such poll, described
	done   chan struct{}
	ended  chan struct{}
}

// poll is one round of questions to every replica.
type poll struct {
	sent, answered time.Time
	who            []string // the replicas that claimed to lead, sorted
}

func watchClaims(t *testing.T, client *http.Client, replicas []string) *claims {
	c := &claims{done: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(c.ended)
		for {
			select {
			case <-c.done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			p := poll{sent: time.Now()}
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
						p.who = append(p.who, r)
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			p.answered = time.Now()
			slices.Sort(p.who)
			c.mu.Lock()
			if len(p.who) > 1 {
				c.double++
				if len(c.log) > 0 {
					c.twoFor += p.answered.Sub(c.log[len(c.log)-1].answered)
				}
				if c.first == "" {
					c.first = fmt.Sprintf("at %s %v all claimed to lead", p.answered.Format(time.StampMilli), p.who)
				}
			}
			c.log = append(c.log, p)
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
	if len(c.log) == 0 {
		return nil
	}
	return slices.Clone(c.log[len(c.log)-1].who)
}

// twoLeaders is how long two or more replicas claimed so far.
func (c *claims) twoLeaders() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.twoFor
}

// claimed reports whether r claimed to lead at p, or any replica when r
// is "".
func (p poll) claimed(r string) bool {
	return len(p.who) > 0 && (r == "" || slices.Contains(p.who, r))
}

// lastClaim returns the last poll sent before before in which r claimed
// to lead (any replica when r is ""), and false when none did.
func (c *claims) lastClaim(r string, before time.Time) (poll, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.log) - 1; i >= 0; i-- {
		if p := c.log[i]; p.sent.Before(before) && p.claimed(r) {
			return p, true
		}
	}
	return poll{}, false
}

// claimsBetween counts the polls sent from from until before until in
// which r claimed to lead (any replica when r is ""), and returns the
// first of them.
func (c *claims) claimsBetween(from, until time.Time, r string) (int, poll) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, first := 0, poll{}
	for _, p := range c.log {
		if !p.sent.Before(from) && p.sent.Before(until) && p.claimed(r) {
			if n == 0 {
				first = p
			}
			n++
		}
	}
	return n, first
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
// two replicas claim to lead; no poll sent two thirds of the timeout or
// more after the cut finds the cut-off leader claiming, and another takes
// over; no poll sent two thirds of the timeout or more after the
// registry's kill finds any replica claiming while it is away, and none
// spins; the agent's heartbeats reach
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
	// The leader's last registry call that succeeded was sent before the
	// cut: from two thirds of the timeout after it until the heal, no poll
	// may find it claiming.
	last, _ := obs.lastClaim(leader, healed)
	late, lateFirst := obs.claimsBetween(cut.Add(timeout*2/3), healed, leader)
	t.Logf("%s cut %v: the leader's last claim answered a poll sent %v after the cut, %q led after %v; two leaders for %v; all agreed %v after the heal (timeout %v)",
		kind, healed.Sub(cut).Round(10*time.Millisecond), last.sent.Sub(cut).Round(10*time.Millisecond), next, took.Round(10*time.Millisecond),
		obs.twoLeaders().Round(10*time.Millisecond), agreed.Round(10*time.Millisecond), timeout)
	switch {
	case late > 0:
		t.Errorf("the cut-off leader claimed to lead at %d polls sent two thirds of the timeout or more after the cut, the first sent %v after it",
			late, lateFirst.sent.Sub(cut))
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
	killed := time.Now() // every registry call that succeeds from here on was sent before this
	reg.proc.kill()
	time.Sleep(2 * timeout) // the observer polls meanwhile
	for _, r := range replicas {
		hooks.post(t, r)
	}
	away := time.Since(killed)
	cores := usedCores(t, replicas, procs, cpu, away)
	restarted := time.Now()
	late, lateFirst = obs.claimsBetween(killed.Add(timeout*2/3), restarted, "")
	if late > 0 {
		t.Errorf("a replica claimed to lead at %d polls sent two thirds of the timeout or more after the registry was killed, the first %v sent %v after it",
			late, lateFirst.who, lateFirst.sent.Sub(killed))
	}
	last, _ = obs.lastClaim("", restarted)
	reg.start()
	agreed, ok = waitUntil(3*timeout+60*time.Second, func() bool {
		l := leaderNamedByAll(client, replicas)
		return l != "" && slices.Equal(obs.claimants(), []string{l})
	})
	t.Logf("%s away %v: %s; the last claim answered a poll sent %v after the kill (answered %v after); two leaders for %v; one leader %v after its start",
		kind, away.Round(10*time.Millisecond), cores, last.sent.Sub(killed).Round(time.Millisecond), last.answered.Sub(killed).Round(time.Millisecond),
		(obs.twoLeaders() - two).Round(10*time.Millisecond),
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
	t.Logf("%s: %d polls, %d with two leaders", kind, len(obs.log), obs.double)
	if obs.double > 0 {
		t.Errorf("%s (%d polls of %d)", obs.first, obs.double, len(obs.log))
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
