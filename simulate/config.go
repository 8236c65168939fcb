package simulate

import (
	"fmt"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/outlier"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/rolling"
	"github.com/slowpeer/slowpeer/suspect"
	"github.com/slowpeer/slowpeer/tracker"
)

// Defaults of Config: the simulated cluster. DefaultConfig assembles them.
const (
	// DefaultHours is how long the measured part of a run lasts.
	DefaultHours = 1.0
	// DefaultWarmup is how long the cluster runs healthy before the
	// measured part, so that the rolling averages hold an hour of history
	// when the fault begins, as on a cluster that has been up for a while.
	DefaultWarmup = time.Hour
	// DefaultTick is the step of synthetic time: packets are batched per
	// tick, and a heartbeat sees the packets of the ticks before its own.
	DefaultTick = 30 * time.Second
	// DefaultReadInterval is how often the services are read (their slow
	// sets updated and scored): the resolution of the time to detect.
	DefaultReadInterval = time.Minute
	// DefaultRackSize is the number of nodes in one rack.
	DefaultRackSize = 40
	// DefaultRemotePeers is the number of nodes in other racks that each
	// node writes to (its -peers list outside its rack); within its rack a
	// node relays to all the others.
	DefaultRemotePeers = 40
	// DefaultSlowFactor is how many times slower a faulty node, link or
	// rack is than it would be.
	DefaultSlowFactor = 10.0
	// DefaultBaseLatencyMs is the typical time to mirror one packet
	// between two racks, before noise.
	DefaultBaseLatencyMs = 1.0
	// DefaultJitterSigma is σ of the log-normal noise of one packet.
	DefaultJitterSigma = 0.5
)

// Config describes one simulated run. Start from DefaultConfig.
type Config struct {
	// Nodes is the number of DataNodes, at least 2 racks' worth.
	Nodes int
	// Scenario is the fault injected at the start of the measured part.
	Scenario Scenario
	// Seed makes the run: the same Config gives the same Result.
	Seed uint64
	// Hours is the length of the measured part, in hours.
	Hours float64
	// Warmup is how long the cluster runs, healthy, before that.
	Warmup time.Duration
	// Incidents, when not zero, is the number of incidents of the
	// scenario in one run: incident k starts at Warmup + k × Every on
	// nodes (a link, a rack) that no earlier one used and lasts Lasting.
	// Zero: one incident from the end of the warmup to the end of the run.
	Incidents int
	// Every is the time between the starts of two incidents.
	Every time.Duration
	// Lasting is how long each incident lasts.
	Lasting time.Duration
	// Tick is the step of synthetic time; it must divide both
	// algorithms' rolling windows.
	Tick time.Duration
	// ReadInterval is how often the services are read; a multiple of Tick.
	ReadInterval time.Duration
	// RackSize is the number of nodes per rack (the last may be short).
	RackSize int
	// RemotePeers is the number of other racks' nodes each node writes to.
	RemotePeers int
	// SlowFactor multiplies the latency of what is at fault.
	SlowFactor float64
	// BaseLatencyMs is the typical latency between racks, before noise;
	// inside a rack it is 0.7 times that.
	BaseLatencyMs float64
	// JitterSigma is σ of the per-packet log-normal noise.
	JitterSigma float64
	// Workers is the number of goroutines that share the nodes; 0 means
	// 2. The Result does not depend on it.
	Workers int

	// Slowpeer is slowpeer's detection, Hadoop Hadoop's, both fed the
	// same packets.
	Slowpeer, Hadoop Algorithm
	// FastPath, when not nil, is slowpeer's fast path (fast.go): the
	// agents probe in coverage rounds and send their recent latencies on
	// every heartbeat, the service's suspect.Detector (this configuration,
	// with the rack topology) asks for probes and admits what it confirms
	// to the slow sets; slowpeer's side without it is then scored too
	// (Result.WithoutFastPath). Nil: today's path alone, on the packets
	// of random peers.
	FastPath *suspect.Config
	// AnswerAnyNode makes the simulated agents obey the fast path's probe
	// requests for any node of the cluster, as agents whose -peers list
	// every DataNode would, while their own probes stay on their
	// RemotePeers and rack-mates. False: they obey, as the agent does,
	// only requests for the peers they probe.
	AnswerAnyNode bool
}

// Algorithm is one detection pipeline: the agents' settings (peer
// metrics, outlier test, report schedule, probe traffic), the service's
// report validity, and what the service makes of the reports.
type Algorithm struct {
	// Agent holds the agent's settings: HeartbeatInterval, ReportInterval,
	// RollingWindow, RollingWindows, MinOutlierDetectionSamples,
	// MinOutlierDetectionNodes, LowThreshold, and, for Slowpeer only, the
	// probe traffic (ProbeInterval, ProbePackets): every node starts one
	// block of ProbePackets packets each ProbeInterval on average. The
	// Hadoop algorithm sees the same packets.
	Agent datanode.Config
	// ReportValidity is how long the service counts a report:
	// 3 × ReportInterval, as SlowPeerTracker.
	ReportValidity time.Duration
	// SlowSet is the hysteresis of the slow set; RawSlowSetConfig for
	// Hadoop (a node is slow while one valid report names it).
	SlowSet tracker.SlowSetConfig
	// Diagnosis, when set, is the configuration of the reporter × peer
	// fit that the service runs on the agents' peer latencies; its
	// findings join the tracker's counts. Nil: the tracker alone.
	Diagnosis *diagnosis.Config
	// DiskFleet is the service's fleet view of the disks (disksim.go);
	// the zero value, Hadoop's, has none.
	DiskFleet disk.FleetConfig
}

// SlowpeerAlgorithm returns slowpeer at its defaults, those of the
// product: the agent's datanode.DefaultConfig (reports every 5 minutes,
// rolling windows of 3 × 1 minute, more than 20 samples), the service's
// report validity of 3 × the interval, the slow set's hysteresis
// (tracker.DefaultSlowSetConfig), and the diagnosis. `slowpeer simulate
// -D` changes them as it would change the daemons'.
func SlowpeerAlgorithm() Algorithm {
	return Slowpeer(datanode.DefaultConfig(), namenode.DefaultConfig())
}

// Slowpeer returns slowpeer with the agents' configuration agent and the
// service's svc, as the daemons would run with them: the service's report
// validity (3 × its report interval), slow set and diagnosis floor.
func Slowpeer(agent datanode.Config, svc namenode.Config) Algorithm {
	d := diagnosis.DefaultConfig()
	d.MaxAge = svc.ReportValidity()
	d.FloorMs = float64(svc.SlowNodesFloor) / float64(time.Millisecond)
	d.MaxReporters, d.MaxPeers = svc.MaxDiagnosisReporters, svc.MaxPeerLatencies
	return Algorithm{Agent: agent, ReportValidity: svc.ReportValidity(), SlowSet: svc.SlowSet, Diagnosis: &d, DiskFleet: svc.Disks.Fleet}
}

// HadoopAlgorithm returns Hadoop's algorithm at Hadoop's defaults:
// 30-minute reports valid 90 minutes, 36 windows of 5 minutes, more than
// 1 000 samples, 10 peers, a 5 ms floor, no hysteresis, no diagnosis.
func HadoopAlgorithm() Algorithm {
	agent := datanode.DefaultConfig()
	agent.HeartbeatInterval = reports.DefaultHeartbeatInterval
	agent.ReportInterval = reports.HadoopOutliersReportInterval
	agent.RollingWindow, agent.RollingWindows = rolling.HadoopDefaultWindow, rolling.HadoopDefaultWindows
	agent.MinOutlierDetectionSamples = datanode.HadoopMinOutlierDetectionSamples
	agent.MinOutlierDetectionNodes = outlier.DefaultMinResources
	agent.LowThreshold = outlier.DefaultLowThreshold
	return Algorithm{Agent: agent, ReportValidity: 3 * agent.ReportInterval, SlowSet: tracker.RawSlowSetConfig()}
}

// DefaultConfig returns a Config of nodes nodes in scenario sc, seed 1,
// with every default.
func DefaultConfig(nodes int, sc Scenario) Config {
	return Config{
		Nodes: nodes, Scenario: sc, Seed: 1, Hours: DefaultHours, Warmup: DefaultWarmup, Tick: DefaultTick,
		ReadInterval: DefaultReadInterval,
		RackSize:     DefaultRackSize, RemotePeers: DefaultRemotePeers, SlowFactor: DefaultSlowFactor,
		BaseLatencyMs: DefaultBaseLatencyMs, JitterSigma: DefaultJitterSigma,
		Slowpeer: SlowpeerAlgorithm(), Hadoop: HadoopAlgorithm(), FastPath: new(suspect.DefaultConfig()),
	}
}

// Validate returns an error naming the first broken rule, or nil.
func (c Config) Validate() error {
	if _, ok := scenarios[c.Scenario]; !ok {
		return fmt.Errorf("unknown scenario %q (known: %s)", c.Scenario, scenarioList())
	}
	switch {
	case c.RackSize < 2:
		return fmt.Errorf("rack size must be at least 2, got %d", c.RackSize)
	case c.Nodes < 2*c.RackSize:
		return fmt.Errorf("nodes must be at least two racks of %d, got %d", c.RackSize, c.Nodes)
	case c.Nodes > 1<<20:
		return fmt.Errorf("nodes must be at most %d, got %d", 1<<20, c.Nodes)
	case !(c.Hours > 0 && c.Hours <= 24*30):
		return fmt.Errorf("hours must be more than 0 and at most 720, got %v", c.Hours)
	case c.Warmup < 0:
		return fmt.Errorf("warmup must not be negative, got %v", c.Warmup)
	case c.Tick <= 0:
		return fmt.Errorf("tick must be more than zero, got %v", c.Tick)
	case c.ReadInterval < c.Tick || c.ReadInterval%c.Tick != 0:
		return fmt.Errorf("read interval %v must be a multiple of the tick %v", c.ReadInterval, c.Tick)
	case c.RemotePeers < 1 || c.RemotePeers > c.Nodes-c.RackSize:
		return fmt.Errorf("remote peers must be between 1 and %d, got %d", c.Nodes-c.RackSize, c.RemotePeers)
	case !(c.SlowFactor >= 1):
		return fmt.Errorf("slow factor must be at least 1, got %v", c.SlowFactor)
	case !(c.BaseLatencyMs > 0):
		return fmt.Errorf("base latency must be more than 0 ms, got %v", c.BaseLatencyMs)
	case !(c.JitterSigma >= 0 && c.JitterSigma < 3):
		return fmt.Errorf("jitter sigma must be in [0, 3), got %v", c.JitterSigma)
	case c.Incidents < 0 || c.Incidents > 100000:
		return fmt.Errorf("incidents must be between 0 and 100000, got %d", c.Incidents)
	case c.Incidents > 0 && !(c.Lasting > 0 && c.Every >= c.Lasting):
		return fmt.Errorf("incidents need a lasting time more than 0 and at most every (the time between two), got lasting %v, every %v", c.Lasting, c.Every)
	case c.Incidents > 0 && !hasIncidents(c.Scenario):
		return fmt.Errorf("scenario %s has no incidents", c.Scenario)
	case c.Incidents > 0 && time.Duration(c.Incidents-1)*c.Every+c.Lasting > time.Duration(c.Hours*float64(time.Hour)):
		return fmt.Errorf("%d incidents every %v lasting %v do not fit in %v hours", c.Incidents, c.Every, c.Lasting, c.Hours)
	case c.Workers < 0:
		return fmt.Errorf("workers must not be negative, got %d", c.Workers)
	}
	if c.FastPath != nil {
		if err := c.FastPath.Validate(); err != nil {
			return fmt.Errorf("fast path: %w", err)
		}
	}
	for _, a := range []struct {
		name string
		alg  Algorithm
	}{{"slowpeer", c.Slowpeer}, {"hadoop", c.Hadoop}} {
		if err := a.alg.validate(c.Tick); err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
	}
	return nil
}

func (a Algorithm) validate(tick time.Duration) error {
	ag := a.Agent
	ag.ID, ag.NameNodes = "10.0.0.1:9866", []string{"http://127.0.0.1:1"}
	if err := ag.Validate(); err != nil {
		return err
	}
	switch {
	case ag.RollingWindow%tick != 0:
		return fmt.Errorf("rolling window %v is not a multiple of the tick %v", ag.RollingWindow, tick)
	case a.ReportValidity <= 0:
		return fmt.Errorf("report validity must be more than zero, got %v", a.ReportValidity)
	}
	if err := a.SlowSet.Validate(); err != nil {
		return err
	}
	if a.Diagnosis != nil {
		return a.Diagnosis.Validate()
	}
	return nil
}
