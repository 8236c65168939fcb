package suspect

import (
	"errors"
	"fmt"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// The keys of the fast path the service reads, and the defaults of Config.
const (
	// EnabledKey turns the fast path on or off (slowpeer.suspect.enabled,
	// default true).
	EnabledKey = "slowpeer.suspect.enabled"
	// RatioKey is Config.Ratio.
	RatioKey = "slowpeer.suspect.ratio"
	// MildRatioKey is Config.MildRatio.
	MildRatioKey = "slowpeer.suspect.mild.ratio"
	// RoundsKey is Config.Rounds.
	RoundsKey = "slowpeer.confirm.rounds"

	// DefaultRatio: three times the expected latency, the diagnosis's
	// rule for a slow node (3 × the cluster median), so that the fast
	// path and the second line agree on what slow means; a 1.5× node is
	// left to the second line.
	DefaultRatio = 3.0
	// DefaultMildRatio: 1.3 times a node's own baseline, for a minute
	// (MildRounds looks): the median of tens of reporters' blocks moves
	// by about 5 % from one look to the next on a healthy node, so 30 %
	// is five times that, and a node 1.5 times slower is 15 % above it.
	DefaultMildRatio = 1.3
	// DefaultRounds: two rounds, the fewest that a pause caught by one
	// round cannot pass alone.
	DefaultRounds = 2
	// DefaultRoundGap: three seconds between two rounds (and between the
	// suspicion and the first), a heartbeat interval: a pause of a few
	// seconds (a garbage collection, a busy disk) ends between them.
	DefaultRoundGap = 3 * time.Second
	// DefaultWitnesses: four witnesses a round, so that one slow witness
	// (outvoted, and cancelled by its control) cannot decide.
	DefaultWitnesses = 4
	// DefaultBlocks: three blocks a probe request; their median rides
	// over one block that waited alone.
	DefaultBlocks = 3
	// DefaultLearn: the model forgets a pair not measured for 30 minutes.
	DefaultLearn = 30 * time.Minute
	// DefaultMaxPeers: the pairs the service keeps of a reporter in the
	// diagnosis (slowpeer.max.peer.latencies, 64), which the service sets;
	// an agent's coverage round takes 15 s at 79 peers, so at 64 the
	// model holds more than a minute of every reporter's latest blocks.
	DefaultMaxPeers = reports.DefaultMaxPeerLatencies
)

// Fixed bounds of the detector.
const (
	// RoundTimeout is how long a round waits for its answers before it
	// is judged on those that came (an agent that reads -hadoop-jmx, or a
	// dead one, never answers).
	RoundTimeout = 20 * time.Second
	// HoldFor is how long a confirmed target stays confirmed once its
	// evidence no longer shows it slow; while confirmed, the service
	// keeps re-admitting it to the slow set.
	HoldFor = time.Minute
	// ClearedFor is how long a cleared suspicion stays in the view.
	ClearedFor = time.Minute
	// MinNodes is the smallest cluster the fast path is built for: a
	// suspect, two witnesses and a control besides them.
	MinNodes = 4
)

// Config is the configuration of a Detector. Start from DefaultConfig; a
// Config is a plain value, safe to copy.
type Config struct {
	// Ratio mirrors slowpeer.suspect.ratio (default DefaultRatio):
	// evidence this many times the expected latency is far above.
	Ratio float64
	// MildRatio mirrors slowpeer.suspect.mild.ratio (default
	// DefaultMildRatio): a node this many times slower than its own
	// baseline for MildRounds looks in a row is confirmed (mild.go); 0
	// turns the mild rule off.
	MildRatio float64
	// Rounds mirrors slowpeer.confirm.rounds (default DefaultRounds):
	// the confirmation rounds, separated in time, that must all find a
	// suspect far above.
	Rounds int
	// RoundGap is the least time between the suspicion and the first
	// round, and between two rounds (default DefaultRoundGap).
	RoundGap time.Duration
	// Witnesses is the number of healthy agents asked per round, other
	// racks first (default DefaultWitnesses).
	Witnesses int
	// Blocks is the number of blocks of each probe request (default
	// DefaultBlocks, at most reports.MaxProbeBlocks).
	Blocks int
	// Learn is the model's memory (default DefaultLearn): a pair not
	// measured for this long is forgotten.
	Learn time.Duration
	// MaxPeers bounds the pairs kept of each reporter (default
	// DefaultMaxPeers; the service sets slowpeer.max.peer.latencies): a
	// new pair past them takes the place of the reporter's oldest, so
	// that what a reporter names, made-up nodes or a thousand peers,
	// never holds more than MaxPeers pairs.
	MaxPeers int
	// Rack returns the rack of a node, "" when unknown; nil without
	// topology. It must be safe for concurrent use.
	Rack func(node string) string
}

// DefaultConfig returns the defaults, without topology.
func DefaultConfig() Config {
	return Config{Ratio: DefaultRatio, MildRatio: DefaultMildRatio, Rounds: DefaultRounds, RoundGap: DefaultRoundGap,
		Witnesses: DefaultWitnesses, Blocks: DefaultBlocks, Learn: DefaultLearn, MaxPeers: DefaultMaxPeers}
}

// Validate returns an error naming the first broken rule, or nil.
func (c Config) Validate() error {
	switch {
	case !(c.Ratio > 1) || c.Ratio > 1000:
		return fmt.Errorf("suspect ratio (%s) must be above 1 and at most 1000, got %v", RatioKey, c.Ratio)
	case c.MildRatio != 0 && !(c.MildRatio > 1 && c.MildRatio < c.Ratio):
		return fmt.Errorf("mild ratio (%s) must be 0 (off) or above 1 and below %s, got %v", MildRatioKey, RatioKey, c.MildRatio)
	case c.Rounds < 1 || c.Rounds > 10:
		return fmt.Errorf("confirmation rounds (%s) must be 1 to 10, got %d", RoundsKey, c.Rounds)
	case c.RoundGap < 0:
		return fmt.Errorf("round gap must not be negative, got %v", c.RoundGap)
	case c.Witnesses < 2 || c.Witnesses > 8:
		return fmt.Errorf("witnesses must be 2 to 8, got %d", c.Witnesses)
	case c.Blocks < 1 || c.Blocks > reports.MaxProbeBlocks:
		return fmt.Errorf("blocks per probe request must be 1 to %d, got %d", reports.MaxProbeBlocks, c.Blocks)
	case c.Learn <= 0:
		return errors.New("learn must be positive")
	case c.MaxPeers < 1 || c.MaxPeers > reports.MaxPeerLatencies:
		return fmt.Errorf("pairs per reporter (%s) must be 1 to %d, got %d", reports.MaxPeerLatenciesKey, reports.MaxPeerLatencies, c.MaxPeers)
	}
	return nil
}
