package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// The defaults and limits of a Config; the flags of "slowpeer demo" reuse
// them.
const (
	DefaultDataNodes = 12
	MinDataNodes     = 4 // three peers: the least a median/MAD test can single one out of
	MaxDataNodes     = 64
	DefaultSlow      = 3
	DefaultSlowDelay = 50 * time.Millisecond
	MaxSlowDelay     = time.Second
)

// How the demo watches and when it calls the result.
const (
	checkEvery    = 250 * time.Millisecond // how often it reads the tracker
	progressEvery = 2 * time.Second        // one progress line this often
	deadline      = time.Minute            // give up waiting for the injected slow node
	quietFor      = time.Minute            // without one, watch this long (two coverage periods) before the report
	quietReports  = 4                      // without a slow disk, watch this many report intervals before the report
)

// Config is one run of the demo. Each field but the functions is a flag
// of "slowpeer demo", and Validate's messages name the flags. The zero
// Config is not usable: start from DefaultConfig and give Report.
type Config struct {
	// DataNodes is the number of agents (-datanodes, DefaultDataNodes),
	// MinDataNodes to MaxDataNodes.
	DataNodes int
	// Slow is the index of the slow agent, 0 to DataNodes-1 (-slow,
	// DefaultSlow).
	Slow int
	// Fault is what makes the slow agent slow (-fault, ack-delay of
	// DefaultSlowDelay); AckDelay(0) for none.
	Fault Fault
	// Lab runs every agent in a network namespace of its own, as a
	// kernel-made Fault does, also for ack-delay or none (-lab).
	Lab bool
	// Duration stops the demo after it (-duration); 0: the demo runs
	// until ctx ends, with JSON for a minute at most.
	Duration time.Duration
	// JSON prints one Result object instead of the progress and the
	// report, once the fault is found or the watch ends (-json).
	JSON bool

	// SoftwareVersion is the service's version, as /jmx and /metrics
	// give it.
	SoftwareVersion string
	// Log receives the agents' warnings, the service's errors and the
	// false positives as they come (the command's stderr); nil: none.
	Log io.Writer
	// Dashboard, if not nil, mounts the operator's page on the service
	// before it serves; the demo runs the Dashboard it returns beside
	// it.
	Dashboard func(srv *namenode.Server) *dashboard.Dashboard
	// Report prints the service's answers as "slowpeer report" does.
	Report Report
}

// Report is how the demo reads and prints the service's report: the
// pieces of "slowpeer report", which the command gives. Every function
// is required.
type Report struct {
	// SlowPeers reads GET /slowpeers of the service at base and prints
	// it as a table; it returns the entries.
	SlowPeers func(ctx context.Context, w io.Writer, base string) ([]reports.SlowNode, error)
	// Diagnosis prints the diagnosis's findings.
	Diagnosis func(w io.Writer, fs []diagnosis.Finding) error
	// SlowDisks reads GET /slowdisks and GET /v1/slowdisks of the
	// service at base.
	SlowDisks func(ctx context.Context, base string) (SlowDisks, error)
	// WriteSlowDisks prints what SlowDisks read.
	WriteSlowDisks func(w io.Writer, d SlowDisks) error
}

// SlowDisks is what the service says of its slow disks.
type SlowDisks struct {
	// Reported are the disks the DataNodes' own tests reported
	// (GET /slowdisks).
	Reported []jmx.SlowDisk
	// Fleet are the findings of the fleet view (GET /v1/slowdisks).
	Fleet []namenode.DiskFinding
}

// DefaultConfig is the demo of "slowpeer demo" without flags: 12 agents,
// agent 3 waiting 50 ms before it acknowledges each packet, until ctx
// ends. Report and the other functions are left for the caller.
func DefaultConfig() Config {
	return Config{DataNodes: DefaultDataNodes, Slow: DefaultSlow, Fault: AckDelay(DefaultSlowDelay)}
}

// Validate names the first broken rule of c, with the flag that sets the
// field.
func (c Config) Validate() error {
	switch {
	case c.DataNodes < MinDataNodes || c.DataNodes > MaxDataNodes:
		return fmt.Errorf("-datanodes %d: want %d to %d", c.DataNodes, MinDataNodes, MaxDataNodes)
	case c.Slow < 0 || c.Slow >= c.DataNodes:
		return fmt.Errorf("-slow %d: want 0 to %d (one of the -datanodes)", c.Slow, c.DataNodes-1)
	case c.Fault.delay < 0 || c.Fault.delay > MaxSlowDelay:
		return fmt.Errorf("-fault %s: want a delay from 0 to %v, e.g. 50ms", c.Fault, MaxSlowDelay)
	case c.Duration < 0:
		return fmt.Errorf("-duration %v is negative", c.Duration)
	case c.Fault.disk != "" && c.Lab:
		return fmt.Errorf("-fault %s runs on loopback: drop -lab", c.Fault)
	case c.Report.SlowPeers == nil || c.Report.Diagnosis == nil || c.Report.SlowDisks == nil || c.Report.WriteSlowDisks == nil:
		return errors.New("demo: a Report function is missing")
	}
	return nil
}
