package simulate

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
)

// incident is one fault of a run: what it makes slow, from when, until
// when, and what the slow set should call it.
type incident struct {
	from, to time.Duration // offsets since the run's start
	// flap, when not zero, makes the incident on only during the first
	// half of every flap period from its start.
	flap            time.Duration
	slowIn, slowOut map[int]bool
	link            [2]int // a slow link, both ways, when hasLink
	hasLink         bool
	rack            int     // a slow rack's uplink, or -1
	slow            float64 // the factor of what is slow
	kind            diagnosis.Kind
	truth           []string // entities at fault, sorted
}

// forever is the end of an incident that lasts to the end of the run.
const forever = time.Duration(1<<63 - 1)

// MildFactorMin and MildFactorMax bound the factor of a mild-slow node,
// drawn uniformly for each incident.
const (
	MildFactorMin = 1.5
	MildFactorMax = 3.0
)

// active reports whether the incident is on at offset t.
func (in *incident) active(t time.Duration) bool {
	if t < in.from || t >= in.to {
		return false
	}
	return in.flap == 0 || (t-in.from)%in.flap < in.flap/2
}

// factor is what the incident, while on, multiplies the latency of i
// sending to j by.
func (in *incident) factor(c *cluster, i, j int) float64 {
	x := 1.0
	if in.slowOut[i] {
		x *= in.slow
	}
	if in.slowIn[j] {
		x *= in.slow
	}
	if in.hasLink && (in.link == [2]int{i, j} || in.link == [2]int{j, i}) {
		x *= in.slow
	}
	if in.rack >= 0 && (c.rackOf[i] == in.rack) != (c.rackOf[j] == in.rack) {
		x *= in.slow
	}
	return x
}

// firstIncident draws the one incident of a run without -incidents: from
// the end of the warmup to the end of the run; for flapping, on during
// the first half of every hour. ok is false for a scenario without one.
// It draws from rng exactly as the runs before incidents did, so that
// their figures stay.
func firstIncident(cfg Config, c *cluster, rng *rand.Rand) (incident, bool) {
	one := rng.IntN(c.n)
	nodes := func(k int) []int {
		if cfg.Scenario == OnePercentSlow {
			return rng.Perm(c.n)[:k]
		}
		return []int{one}
	}
	in, ok := newIncident(cfg, c, rng, nodes)
	in.from, in.to = cfg.Warmup, forever
	if cfg.Scenario == Flapping {
		in.flap = time.Hour
	}
	return in, ok
}

// drawIncidents draws cfg.Incidents incidents: incident k starts at the
// end of the warmup plus k × cfg.Every and lasts cfg.Lasting, on nodes no
// earlier incident used (racks in turn, once all are used); a flapping
// node is on during the first half of each half of its incident.
func drawIncidents(cfg Config, c *cluster) []incident {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x1c1d))
	used := make([]bool, c.n)
	left := c.n
	fresh := func(k int) []int {
		var out []int
		for len(out) < k {
			if left == 0 {
				clear(used)
				left = c.n
			}
			i := rng.IntN(c.n)
			if !used[i] {
				used[i], left = true, left-1
				out = append(out, i)
			}
		}
		return out
	}
	racks := rng.Perm(len(c.racks))
	var out []incident
	for k := range cfg.Incidents {
		nodes := fresh
		if cfg.Scenario == SlowRack {
			r := racks[k%len(racks)]
			nodes = func(int) []int { return []int{int(c.racks[r][0])} }
		}
		in, ok := newIncident(cfg, c, rng, nodes)
		if !ok {
			return nil
		}
		in.from = cfg.Warmup + time.Duration(k)*cfg.Every
		in.to = in.from + cfg.Lasting
		if cfg.Scenario == Flapping {
			in.flap = cfg.Lasting / 2
		}
		if p := in.link[1]; in.hasLink && !used[p] {
			used[p], left = true, left-1
		}
		out = append(out, in)
	}
	return out
}

// newIncident makes an incident of cfg's scenario on the nodes nodes(k)
// picks (k of them), drawing the rest from rng; ok is false for a
// scenario without incidents.
func newIncident(cfg Config, c *cluster, rng *rand.Rand, nodes func(k int) []int) (incident, bool) {
	in := incident{slowIn: map[int]bool{}, slowOut: map[int]bool{}, rack: -1, slow: cfg.SlowFactor}
	host := func(i int) { in.slowIn[i], in.slowOut[i] = true, true }
	switch cfg.Scenario {
	case SlowReceiver:
		in.slowIn[nodes(1)[0]], in.kind = true, diagnosis.Inbound
	case SlowSender:
		in.slowOut[nodes(1)[0]], in.kind = true, diagnosis.Outbound
	case SlowHost, Flapping:
		host(nodes(1)[0])
		in.kind = diagnosis.Both
	case MildSlow:
		host(nodes(1)[0])
		in.kind, in.slow = diagnosis.Both, MildFactorMin+(MildFactorMax-MildFactorMin)*rng.Float64()
	case OnePercentSlow:
		for _, i := range nodes(max(1, c.n/100)) {
			host(i)
		}
		in.kind = diagnosis.Both
	case SlowLink:
		one := nodes(1)[0]
		peer := c.remote[one][rng.IntN(len(c.remote[one]))]
		in.link, in.hasLink, in.kind = [2]int{one, int(peer)}, true, diagnosis.Link
		in.truth = []string{diagnosis.LinkEntity(c.names[one], c.names[peer])}
	case SlowRack:
		in.rack, in.kind = c.rackOf[nodes(1)[0]], diagnosis.Rack
		for _, i := range c.racks[in.rack] {
			in.truth = append(in.truth, c.names[i])
		}
	default:
		return incident{}, false
	}
	for i := range c.n {
		if in.slowIn[i] || in.slowOut[i] {
			in.truth = append(in.truth, c.names[i])
		}
	}
	slices.Sort(in.truth)
	return in, true
}
