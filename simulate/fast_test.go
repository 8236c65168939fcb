package simulate

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/suspect"
)

// incidents returns a small cluster with the fast path and n incidents
// of sc, 10 minutes apart, each lasting 5; its agents answer probe
// requests for their peers only, as the agent does.
func incidents(sc Scenario, seed uint64, n int) Config {
	cfg := small(sc, seed)
	cfg.FastPath = new(suspect.DefaultConfig())
	cfg.Incidents, cfg.Every, cfg.Lasting = n, 10*time.Minute, 5*time.Minute
	cfg.Hours = (time.Duration(n)*cfg.Every + LateGrace).Hours()
	return cfg
}

// TestFastPathScenarios checks that slowpeer with its fast path puts
// every incident of each fault scenario (a mild one aside) in the slow
// set within three minutes, without false positives, and that without
// it, on the same packets, takes longer; healthy and gc-pauses have no
// entry. (How fast, and of which kind, is what DETECTION.md measures.)
func TestFastPathScenarios(t *testing.T) {
	for _, sc := range Scenarios() {
		if isDisk(sc) || sc == MildSlow {
			continue
		}
		t.Run(string(sc), func(t *testing.T) {
			t.Parallel()
			cfg := incidents(sc, 1, 3)
			if !hasIncidents(sc) {
				cfg = small(sc, 1)
				cfg.FastPath = new(suspect.DefaultConfig())
			}
			r, err := Run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			m, w := r.Slowpeer.Incidents, r.WithoutFastPath.Incidents
			if m.FalsePositives != 0 || w.FalsePositives != 0 {
				t.Fatalf("false positives: %v, without the fast path %v", r.Slowpeer.FalsePositiveEntities, r.WithoutFastPath.FalsePositiveEntities)
			}
			if !hasIncidents(sc) {
				return
			}
			if m.Recall == nil || *m.Recall != 1 || m.KindRight == nil || m.TimeToEnterSeconds.P95 > 180 {
				b, _ := json.Marshal(m)
				t.Fatalf("fast path: %s", b)
			}
			if q := w.TimeToEnterSeconds; q != nil && q.P50 < 120 {
				t.Fatalf("without the fast path: %+v", w)
			}
			if r.Cost == nil || r.Cost.RequestedBlocksPerAgentHour <= 0 || r.Cost.HeartbeatBytes.WithReport.P50 <= r.Cost.HeartbeatBytes.WithoutReport.P99 {
				t.Fatalf("cost: %+v", r.Cost)
			}
		})
	}
}

// TestMildSlow checks that mild-slow is a scenario and harder than
// slow-host: on the same seed, fewer of its incidents are found, or later.
func TestMildSlow(t *testing.T) {
	if !slices.Contains(Scenarios(), MildSlow) {
		t.Fatal("no scenario mild-slow")
	}
	run := func(sc Scenario) *IncidentMetrics {
		t.Helper()
		r, err := Run(context.Background(), incidents(sc, 2, 3), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.Slowpeer.Incidents
	}
	host, mild := run(SlowHost), run(MildSlow)
	if *host.Recall != 1 {
		t.Fatalf("slow-host: %+v", host)
	}
	if mild.Detected == host.Detected && mild.TimeToEnterSeconds.P95 <= host.TimeToEnterSeconds.P95 {
		t.Fatalf("mild-slow %+v is not harder than slow-host %+v", mild, host)
	}
}

// TestFastPathKnownPeers checks that the detector asks each agent only
// for its peers: agents that obey requests for any node make the same
// run.
func TestFastPathKnownPeers(t *testing.T) {
	run := func(anyNode bool) []byte {
		t.Helper()
		cfg := incidents(SlowHost, 1, 2)
		cfg.AnswerAnyNode = anyNode
		r, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if own, anyNode := run(false), run(true); string(own) != string(anyNode) {
		t.Fatalf("the agents' own rule:\n%s\nanswering any node:\n%s", own, anyNode)
	}
}
