package reports

import (
	"fmt"
	"slices"
)

// The bounds of the fast path's evidence and requests.
const (
	// MaxRecentLatencies bounds a heartbeat's recentLatencies.
	MaxRecentLatencies = 256
	// MaxRecentBlocks bounds the blocks behind one recent latency.
	MaxRecentBlocks = 1000
	// MaxProbeRequests bounds the probe requests of one heartbeat reply.
	MaxProbeRequests = 16
	// MaxProbeBlocks bounds the blocks of one probe request.
	MaxProbeBlocks = 8
)

// RecentLatency is what a DataNode measured of one peer since its previous
// heartbeat: the median packet latency of the probe blocks it completed
// towards the peer, and how many. It is the fast path's evidence, sent on
// every heartbeat that has some (DESIGN.md, "recentLatencies"); the report
// interval's peerLatencies keep Hadoop's meaning.
type RecentLatency struct {
	// Node is the peer's id, "host:port".
	Node string `json:"node"`
	// LatencyMs is the median over the blocks of each block's median
	// packet-mirroring latency.
	LatencyMs float64 `json:"latencyMs"`
	// Blocks is the number of blocks behind LatencyMs, at least 1.
	Blocks int64 `json:"blocks"`
	// Round is the service's confirmation round that asked for these
	// blocks (a ProbeRequest's Round), or 0 for the agent's own probes.
	Round int64 `json:"round,omitempty"`
}

func (r RecentLatency) validate() error {
	if err := ValidateNode(r.Node); err != nil {
		return fmt.Errorf("node: %w", err)
	}
	if err := ValidateLatency(r.LatencyMs); err != nil {
		return fmt.Errorf("latencyMs: %w", err)
	}
	if r.Blocks < 1 || r.Blocks > MaxRecentBlocks {
		return fmt.Errorf("blocks: %d, want 1 to %d", r.Blocks, MaxRecentBlocks)
	}
	if r.Round < 0 {
		return fmt.Errorf("round: negative %d", r.Round)
	}
	return nil
}

// recentLinearScan is the most recent latencies whose repeats are looked
// for by comparing each with those before it, with no map to allocate.
const recentLinearScan = 32

// validateRecent checks a heartbeat's recentLatencies: at most
// MaxRecentLatencies, each valid, no node and round named twice.
func validateRecent(rs []RecentLatency) error {
	if len(rs) > MaxRecentLatencies {
		return fmt.Errorf("recentLatencies: %d entries, at most %d allowed", len(rs), MaxRecentLatencies)
	}
	type key struct {
		node  string
		round int64
	}
	var seen map[key]struct{} // for many; a heartbeat has a few dozen at most
	if len(rs) > recentLinearScan {
		seen = make(map[key]struct{}, len(rs))
	}
	for i, r := range rs {
		if err := r.validate(); err != nil {
			return fmt.Errorf("recentLatencies[%d]: %w", i, err)
		}
		k := key{r.Node, r.Round}
		dup := false
		if seen != nil {
			_, dup = seen[k]
			seen[k] = struct{}{}
		} else {
			dup = slices.ContainsFunc(rs[:i], func(o RecentLatency) bool { return o.Node == r.Node && o.Round == r.Round })
		}
		if dup {
			return fmt.Errorf("recentLatencies[%d]: node %q of round %d named twice", i, Clip(r.Node), r.Round)
		}
	}
	return nil
}

// recentLatencies reads the recentLatencies value: null, or an array of
// objects with node, latencyMs, blocks and an optional round.
func (sc *scanner) recentLatencies() ([]RecentLatency, error) {
	names := []string{"node", "latencyMs", "blocks", "round"}
	return objects(sc, "recentLatencies", MaxRecentLatencies, ReasonTooManyPeers, names, 0b111,
		func(r *RecentLatency, f int, at fieldPath) (err error) {
			switch f {
			case 0:
				r.Node, err = sc.stringValue(at)
			case 1:
				r.LatencyMs, err = sc.number(at)
			case 2:
				r.Blocks, err = sc.integer(at)
			case 3:
				r.Round, err = sc.integer(at)
			}
			return err
		})
}
