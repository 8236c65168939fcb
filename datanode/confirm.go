package datanode

import (
	"log/slog"
	"sync"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// maxLoggedRequests bounds the distinct ignored requests the agent logs;
// past it they are only counted.
const maxLoggedRequests = 256

// ConfirmBudget is the confirmation budget of an agent (slowpeer.probe.confirm.budget):
// a token bucket of PerMinute blocks, full at the start and refilled at
// PerMinute blocks a minute, so that at most PerMinute blocks, plus the
// refill, go in any minute. It never reads the clock.
//
// A ConfirmBudget is not safe for concurrent use. Its zero value obeys nothing.
type ConfirmBudget struct {
	PerMinute int

	tokens float64
	last   time.Time // when tokens was last refilled; zero: never
}

// Take takes blocks blocks from the budget at now and reports whether it
// had them; if not, it takes none.
func (b *ConfirmBudget) Take(now time.Time, blocks int) bool {
	capacity := float64(b.PerMinute)
	switch {
	case b.last.IsZero():
		b.tokens = capacity
	case now.After(b.last):
		b.tokens = min(capacity, b.tokens+now.Sub(b.last).Minutes()*capacity)
	}
	if now.After(b.last) {
		b.last = now
	}
	if float64(blocks) > b.tokens {
		return false
	}
	b.tokens -= float64(blocks)
	return true
}

// confirmJob is the probe requests of one heartbeat reply that the agent
// runs; done is called once their blocks have ended.
type confirmJob struct {
	requests []reports.ProbeRequest
	done     func()
}

// confirmer takes the probe requests of the services' heartbeat replies:
// those for peers the agent probes, within its budget, go to the prober
// at once; the others are ignored, counted and logged once each.
//
// It is safe for concurrent use.
type confirmer struct {
	known    map[string]bool // the peers the agent probes; read only
	jobs     chan confirmJob // to the prober; nil: the agent does not probe
	counters *counters
	log      *slog.Logger

	mu     sync.Mutex
	budget ConfirmBudget   // guarded by mu
	logged map[string]bool // ignored requests logged; guarded by mu
}

func newConfirmer(cfg Config, peers []string, probes bool, c *counters, log *slog.Logger) *confirmer {
	k := &confirmer{known: map[string]bool{}, counters: c, log: log,
		budget: ConfirmBudget{PerMinute: cfg.ProbeConfirmBudget}, logged: map[string]bool{}}
	for _, p := range peers {
		k.known[p] = true
	}
	if probes {
		k.jobs = make(chan confirmJob, 4)
	}
	return k
}

// obey takes the requests of one reply at now (ignored: the reasons of
// those the reply's parser left out) and hands those it runs to the
// prober, which calls done after their last block. It reports whether
// any will run; if none, done is never called.
func (k *confirmer) obey(now time.Time, requests []reports.ProbeRequest, ignored []string, done func()) bool {
	for _, why := range ignored {
		k.ignore("malformed probe request", why)
	}
	var run []reports.ProbeRequest
	for _, r := range requests {
		switch {
		case k.jobs == nil:
			k.ignore("probe request ignored: this agent does not probe its peers", r.Node)
		case !k.known[r.Node]:
			k.ignore("probe request for a peer this agent does not probe: ignored", r.Node)
		case !k.take(now, r.Blocks):
			k.ignore("probe request over "+ProbeConfirmBudgetKey+": ignored", r.Node)
		default:
			run = append(run, r)
		}
	}
	if len(run) == 0 {
		return false
	}
	select {
	case k.jobs <- confirmJob{requests: run, done: done}:
		return true
	default:
		for _, r := range run {
			k.ignore("probe request ignored: the probes asked before are still running", r.Node)
		}
		return false
	}
}

func (k *confirmer) take(now time.Time, blocks int) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.budget.Take(now, blocks)
}

// ignore counts an ignored request and logs it the first time msg is said
// of what.
func (k *confirmer) ignore(msg, what string) {
	k.counters.probeRequestsIgnored.Add(1)
	key := msg + "\x00" + what
	k.mu.Lock()
	first := !k.logged[key] && len(k.logged) < maxLoggedRequests
	if first {
		k.logged[key] = true
	}
	k.mu.Unlock()
	if first {
		k.log.Warn(msg+" (logged once)", slog.String("request", reports.Clip(what)))
	}
}
