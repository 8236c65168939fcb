package simulate

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// small returns a cluster small and short enough for a test of a few
// seconds: five racks of ten, half an hour after a quarter of an hour,
// without the fast path (today's path, on random peers).
func small(sc Scenario, seed uint64) Config {
	cfg := DefaultConfig(50, sc)
	cfg.Seed, cfg.RackSize, cfg.RemotePeers = seed, 10, 10
	cfg.Hours, cfg.Warmup = 0.5, 15*time.Minute
	cfg.FastPath = nil
	return cfg
}

// TestSimulateDeterministic checks that a seed gives the same Result
// whatever the number of workers, and another seed another cluster.
func TestSimulateDeterministic(t *testing.T) {
	run := func(cfg Config) Result {
		t.Helper()
		r, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := small(GCPauses, 7)
	a.Workers = 1
	b := small(GCPauses, 7)
	b.Workers = 3
	ra, rb := run(a), run(b)
	if !reflect.DeepEqual(ra, rb) {
		t.Fatalf("same seed, different results:\n%+v\n%+v", ra, rb)
	}
	c := small(SlowHost, 7)
	d := small(SlowHost, 8)
	if rc, rd := run(c), run(d); reflect.DeepEqual(rc.Truth, rd.Truth) {
		t.Fatalf("seeds 7 and 8 made the same fault %v", rc.Truth)
	}
	// With the fast path and incidents: the same JSON.
	e := incidents(SlowLink, 7, 3)
	e.Workers = 1
	f := incidents(SlowLink, 7, 3)
	f.Workers = 3
	je, _ := json.Marshal(run(e))
	jf, _ := json.Marshal(run(f))
	if string(je) != string(jf) {
		t.Fatalf("same seed, different JSON:\n%s\n%s", je, jf)
	}
}

// TestSimulateScenarios checks that slowpeer without its fast path finds
// each scenario's fault in a short run of a small cluster (but a mild
// one, which it may take longer to find), and nothing in a healthy one.
func TestSimulateScenarios(t *testing.T) {
	for _, sc := range Scenarios() {
		if sc == MildSlow {
			continue
		}
		t.Run(string(sc), func(t *testing.T) {
			t.Parallel()
			r, err := Run(context.Background(), small(sc, 1), nil)
			if err != nil {
				t.Fatal(err)
			}
			m := r.Slowpeer
			switch sc {
			case Healthy, GCPauses, BusyDisk:
				if m.FalsePositives != 0 || m.Recall != nil {
					t.Fatalf("%s: %+v", sc, m)
				}
				return
			}
			if m.Recall == nil || *m.Recall < 1 {
				t.Fatalf("%s: recall %v, truth %v, false positives %v", sc, ptr(m.Recall), r.Truth, m.FalsePositiveEntities)
			}
			if m.FalsePositives != 0 {
				t.Errorf("%s: false positives %v", sc, m.FalsePositiveEntities)
			}
			if m.TimeToDetectSeconds == nil || m.TimeToDetectSeconds.P95 > 30*60 {
				t.Errorf("%s: time to detect %+v", sc, m.TimeToDetectSeconds)
			}
		})
	}
}

// TestSimulateHadoopBaseline checks one figure of Hadoop's side: it
// blames the receiver of a slow link, which is no fault of its own.
func TestSimulateHadoopBaseline(t *testing.T) {
	cfg := small(SlowLink, 1)
	// A short run: reports often enough to come after the fault.
	cfg.Hadoop.Agent.ReportInterval, cfg.Hadoop.ReportValidity = 5*time.Minute, 15*time.Minute
	r, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Hadoop.FalsePositives == 0 || r.Slowpeer.FalsePositives != 0 {
		t.Fatalf("slow link: hadoop %+v, slowpeer %+v", r.Hadoop, r.Slowpeer)
	}
}

// TestConfigValidate checks a few broken rules.
func TestConfigValidate(t *testing.T) {
	for _, edit := range []func(*Config){
		func(c *Config) { c.Scenario = "nope" },
		func(c *Config) { c.Nodes = 10 },
		func(c *Config) { c.Hours = 0 },
		func(c *Config) { c.Tick = 7 * time.Minute },
		func(c *Config) { c.RemotePeers = 0 },
		func(c *Config) { c.Slowpeer.SlowSet.EnterReporters = 0 },
	} {
		cfg := DefaultConfig(1000, Healthy)
		edit(&cfg)
		if cfg.Validate() == nil {
			t.Errorf("%+v validated", cfg)
		}
	}
	if err := DefaultConfig(1000, Healthy).Validate(); err != nil {
		t.Fatal(err)
	}
}

func ptr(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestRunCancelled checks that Run stops once its context is done.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, small(Healthy, 1), nil); err == nil {
		t.Fatal("Run with a cancelled context returned no error")
	}
}
