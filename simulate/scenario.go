package simulate

import (
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Scenario names a fault, as `slowpeer simulate -scenario` takes it.
type Scenario string

// The scenarios (DESIGN.md, "Command line").
const (
	// Healthy injects nothing: only the noise every scenario has.
	Healthy Scenario = "healthy"
	// SlowReceiver makes one node slow to receive: what is sent to it
	// takes SlowFactor times longer.
	SlowReceiver Scenario = "slow-receiver"
	// SlowSender makes one node slow to send: what it measures of every
	// peer takes SlowFactor times longer.
	SlowSender Scenario = "slow-sender"
	// SlowHost makes one node slow both ways.
	SlowHost Scenario = "slow-host"
	// SlowLink makes one pair of nodes slow between them, both ways.
	SlowLink Scenario = "slow-link"
	// SlowRack makes the uplink of one rack slow: traffic that crosses
	// its edge, in or out.
	SlowRack Scenario = "slow-rack"
	// OnePercentSlow makes 1 % of the nodes (at least one) slow hosts.
	OnePercentSlow Scenario = "one-percent-slow"
	// Flapping makes one node a slow host during the first half of every
	// hour of the measured part.
	Flapping Scenario = "flapping"
	// MildSlow makes one node a slow host by a factor drawn between
	// MildFactorMin and MildFactorMax (1.5 to 3) instead of SlowFactor.
	MildSlow Scenario = "mild-slow"
	// GCPauses gives a third of the hosts frequent heavy-tailed pauses
	// (garbage collection, a busy disk); nobody is truly slow.
	GCPauses Scenario = "gc-pauses"
)

var scenarios = map[Scenario]bool{
	Healthy: true, SlowReceiver: true, SlowSender: true, SlowHost: true, SlowLink: true,
	SlowRack: true, OnePercentSlow: true, Flapping: true, MildSlow: true, GCPauses: true,
}

// hasIncidents reports whether sc injects faults (not healthy, gc-pauses
// or a disk scenario).
func hasIncidents(sc Scenario) bool {
	return scenarios[sc] && sc != Healthy && sc != GCPauses && !isDisk(sc)
}

// Scenarios returns every scenario, sorted.
func Scenarios() []Scenario {
	out := make([]Scenario, 0, len(scenarios))
	for s := range scenarios {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func scenarioList() string {
	var b strings.Builder
	for i, s := range Scenarios() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(s))
	}
	return b.String()
}

// Pauses: every host may pause (a garbage collection, a busy disk) for a
// Pareto-distributed time (PauseMin, α PauseAlpha, at most PauseMax);
// packets sent to or by it during a pause wait for its end.
const (
	PauseMin   = 50 * time.Millisecond
	PauseAlpha = 1.5
	PauseMax   = 10 * time.Second
	// In every scenario 5 % of the hosts pause 2 times an hour on average.
	pauseShareDefault, pausesPerHourDefault = 0.05, 2.0
	// In gc-pauses a third of the hosts pause 12 times an hour: about
	// 1.5 s of pause an hour on average, 0.04 % of the time, with a pause
	// of over 5 s about once in 30 host-hours.
	pauseShareGC, pausesPerHourGC = 1.0 / 3, 12.0
)

// fault is what a scenario makes slow: its incidents, and the pauses
// every host may take.
type fault struct {
	incidents     []incident
	pauseShare    float64
	pausesPerHour float64
	truth         []string             // entities at fault in some incident, sorted
	start         map[string]time.Time // entity → the start of its (first) incident
}

// newFault draws the fault of cfg's scenario in cluster c: one incident
// from the end of the warmup to the end of the run, or cfg.Incidents of
// them on fresh nodes (incident.go).
func newFault(cfg Config, c *cluster, rng *rand.Rand) fault {
	f := fault{pauseShare: pauseShareDefault, pausesPerHour: pausesPerHourDefault, start: map[string]time.Time{}}
	if cfg.Scenario == GCPauses {
		f.pauseShare, f.pausesPerHour = pauseShareGC, pausesPerHourGC
	}
	if cfg.Incidents == 0 {
		in, ok := firstIncident(cfg, c, rng)
		if ok {
			f.incidents = []incident{in}
		}
	} else {
		f.incidents = drawIncidents(cfg, c)
	}
	for _, in := range f.incidents {
		for _, e := range in.truth {
			if _, ok := f.start[e]; !ok {
				f.start[e] = epoch.Add(in.from)
				f.truth = append(f.truth, e)
			}
		}
	}
	slices.Sort(f.truth)
	return f
}

// on returns the incidents that may be on during [from, to), offsets
// since the run's start.
func (f *fault) on(from, to time.Duration) []*incident {
	var out []*incident
	for k := range f.incidents {
		if in := &f.incidents[k]; in.from < to && in.to > from {
			out = append(out, in)
		}
	}
	return out
}

// factor is what the incidents of on multiply the latency of i sending to
// j by at offset t since the run's start.
func factor(on []*incident, c *cluster, i, j int, t time.Duration) float64 {
	x := 1.0
	for _, in := range on {
		if in.active(t) {
			x *= in.factor(c, i, j)
		}
	}
	return x
}
