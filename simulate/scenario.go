package simulate

import (
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
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
	// GCPauses gives a third of the hosts frequent heavy-tailed pauses
	// (garbage collection, a busy disk); nobody is truly slow.
	GCPauses Scenario = "gc-pauses"
)

var scenarios = map[Scenario]bool{
	Healthy: true, SlowReceiver: true, SlowSender: true, SlowHost: true, SlowLink: true,
	SlowRack: true, OnePercentSlow: true, Flapping: true, GCPauses: true,
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

// fault is what a scenario makes slow, by node index.
type fault struct {
	slowIn, slowOut map[int]bool
	link            [2]int // a slow link, both ways, when hasLink
	hasLink         bool
	rack            int // a slow rack's uplink, or -1
	flapping        bool
	pauseShare      float64
	pausesPerHour   float64
	truth           []string // entities at fault
}

// newFault draws the fault of sc in cluster c.
func newFault(sc Scenario, c *cluster, rng *rand.Rand) fault {
	f := fault{slowIn: map[int]bool{}, slowOut: map[int]bool{}, rack: -1,
		pauseShare: pauseShareDefault, pausesPerHour: pausesPerHourDefault}
	one := rng.IntN(c.n)
	switch sc {
	case SlowReceiver:
		f.slowIn[one] = true
	case SlowSender:
		f.slowOut[one] = true
	case SlowHost:
		f.slowIn[one], f.slowOut[one] = true, true
	case Flapping:
		f.slowIn[one], f.slowOut[one], f.flapping = true, true, true
	case OnePercentSlow:
		for _, i := range rng.Perm(c.n)[:max(1, c.n/100)] {
			f.slowIn[i], f.slowOut[i] = true, true
		}
	case SlowLink:
		peer := c.remote[one][rng.IntN(len(c.remote[one]))]
		f.link, f.hasLink = [2]int{one, int(peer)}, true
		f.truth = []string{diagnosis.LinkEntity(c.names[one], c.names[peer])}
	case SlowRack:
		f.rack = c.rackOf[one]
		for i := range c.n {
			if c.rackOf[i] == f.rack {
				f.truth = append(f.truth, c.names[i])
			}
		}
	case GCPauses:
		f.pauseShare, f.pausesPerHour = pauseShareGC, pausesPerHourGC
	}
	for i := range c.n {
		if f.slowIn[i] || f.slowOut[i] {
			f.truth = append(f.truth, c.names[i])
		}
	}
	slices.Sort(f.truth)
	return f
}

// active reports whether the fault is on at offset since the start of
// the measured part (negative during the warmup).
func (f *fault) active(offset time.Duration) bool {
	if offset < 0 {
		return false
	}
	return !f.flapping || offset%time.Hour < 30*time.Minute
}

// factor is what the fault multiplies the latency of i sending to j by.
func (f *fault) factor(c *cluster, i, j int, slow float64) float64 {
	x := 1.0
	if f.slowOut[i] {
		x *= slow
	}
	if f.slowIn[j] {
		x *= slow
	}
	if f.hasLink && (f.link == [2]int{i, j} || f.link == [2]int{j, i}) {
		x *= slow
	}
	if f.rack >= 0 && (c.rackOf[i] == f.rack) != (c.rackOf[j] == f.rack) {
		x *= slow
	}
	return x
}
