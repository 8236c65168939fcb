package datanode

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// heartbeatSender sends one heartbeat to one NameNode-side service.
type heartbeatSender interface {
	SendHeartbeat(ctx context.Context, hb reports.Heartbeat) (reply reports.HeartbeatReply, ignored []string, err error)
}

// detectFunc returns the slow-peer report due at now, or an error when the
// source has none to give (then the heartbeat goes without a report and the
// report stays due).
type detectFunc func(now time.Time) (Detection, error)

// ServiceStatus is what an agent knows of one NameNode-side service.
type ServiceStatus struct {
	// URL is the service's base URL.
	URL string
	// Heartbeats is the number of heartbeats the service acknowledged.
	Heartbeats int64
	// Reports is the number of slow-peer reports it acknowledged.
	Reports int64
	// Failures is the number of consecutive failed heartbeats, 0 while the
	// service answers.
	Failures int
	// LastDelivered is when the last heartbeat was acknowledged; zero
	// before the first.
	LastDelivered time.Time
	// LastError is the error of the last failed heartbeat, "" if none.
	LastError string
	// Slow is the service's last answer: this node is reported slow by
	// its peers.
	Slow bool
}

// actor sends the heartbeats of one agent to one service, on its own
// schedule (without reports when detect is nil), as one of HDFS's BPServiceActor threads: it shares nothing with
// the other actors but the report source, so that a slow or dead service
// delays no other.
type actor struct {
	node       string
	send       heartbeatSender
	detect     detectFunc
	heartbeat  time.Duration
	report     time.Duration
	maxBackoff time.Duration
	// lookAgain is the span of the report source's averages, the delay of
	// an early second look at a newly named slow peer (Scheduler.Named);
	// 0 for none.
	lookAgain time.Duration
	// disks is the measurement of the node's volumes, nil for none: its
	// slow-disk report rides with the slow-peer report, or alone on the
	// same schedule when there is no slow-peer report (detect nil).
	disks *Disks
	// recent is the log of the agent's probe blocks, carried in every
	// heartbeat's recentLatencies; nil for none (-hadoop-jmx).
	recent *recentLog
	// confirm takes the probe requests of the service's replies; nil
	// ignores them.
	confirm *confirmer
	// wake asks for a heartbeat now: the blocks a reply asked for have
	// ended.
	wake chan struct{}
	// httpAddr returns the agent's HTTP address for the heartbeat, "" for
	// none; nil means none.
	httpAddr   func() string
	jitter     func() float64
	counters   *counters
	log        *slog.Logger
	waitLogged bool // owned by run: "waits for data" was logged
	// leaving is set while the service is gone from the registry the
	// agent follows: run ends at its first failed heartbeat.
	leaving atomic.Bool

	mu     sync.Mutex
	status ServiceStatus // guarded by mu
}

// run sends heartbeats until ctx is done, or, once the service is
// leaving, until a heartbeat fails.
func (a *actor) run(ctx context.Context) {
	if a.recent != nil {
		a.recent.join(a)
		defer a.recent.leave(a)
	}
	s := NewScheduler(time.Now(), a.heartbeat, a.report, a.maxBackoff, a.jitter)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-a.wake: // nil: never
			a.log.Debug("early heartbeat: the probes the service asked for have ended")
		}
		a.beat(ctx, s)
		if s.Failures() > 0 && a.leaving.Load() {
			return
		}
		timer.Reset(s.Next(time.Now()))
	}
}

// beat sends one heartbeat and tells s how it went. The request is bounded
// by the heartbeat interval, so a hanging service costs at most one
// interval before the next attempt.
func (a *actor) beat(ctx context.Context, s *Scheduler) {
	now := time.Now()
	due := s.Begin(now)
	report := due && a.detect != nil // nil: peer statistics off, never a report
	hb := reports.Heartbeat{Node: a.node}
	if a.httpAddr != nil {
		hb.HTTPAddress = a.httpAddr()
	}
	var det Detection
	if report {
		d, err := a.detect(now)
		switch {
		case err != nil:
			a.log.Warn("heartbeat goes without a slow-peer report", slog.Any("err", err))
			report = false
		case d.Skipped && !s.Reported():
			// No data yet: an empty first report would put the next one
			// a whole interval off. It stays due (Scheduler.Reported).
			if !a.waitLogged {
				a.waitLogged = true
				a.log.Info("first slow-peer report waits for data", slog.Int("peers", d.Peers))
			}
			report = false
		default:
			det, hb.SlowPeers, hb.PeerLatencies = d, d.SlowPeers, d.PeerLatencies
		}
	}
	diskReport := a.disks != nil && (report || due && a.detect == nil)
	if diskReport {
		hb.SlowDisks, hb.DiskLatencies, diskReport = a.disks.ReportAt(now)
	}
	var recentEnd uint64
	var recentDropped int
	if a.recent != nil {
		hb.RecentLatencies, recentEnd, recentDropped = a.recent.pending(a)
	}
	rctx, cancel := context.WithTimeout(ctx, a.heartbeat)
	reply, ignored, err := a.send.SendHeartbeat(rctx, hb)
	cancel()
	done := time.Now()
	if err != nil {
		if ctx.Err() != nil {
			return // shutting down: not the service's fault
		}
		s.Failed(done)
		a.counters.heartbeatsFailed.Add(1)
		a.mu.Lock()
		a.status.Failures, a.status.LastError = s.Failures(), err.Error()
		a.mu.Unlock()
		a.log.Warn("heartbeat failed", slog.Int("failures", s.Failures()),
			slog.Duration("retryIn", s.Next(done)), slog.Bool("report", report), slog.Any("err", err))
		return
	}
	if a.recent != nil {
		a.recent.carried(a, recentEnd)
		a.counters.recentBlocksDropped.Add(int64(recentDropped))
	}
	if a.confirm != nil {
		a.confirm.obey(done, reply.Probe, ignored, a.wakeUp)
	}
	failures := s.Failures()
	s.Delivered(done, report || diskReport)
	if report {
		s.Named(done, det.SlowPeers, a.lookAgain)
	}
	a.counters.heartbeatsSent.Add(1)
	a.mu.Lock()
	wasSlow, first := a.status.Slow, a.status.Heartbeats == 0
	a.status.Heartbeats++
	a.status.Failures, a.status.LastDelivered, a.status.LastError, a.status.Slow = 0, done, "", reply.Slow
	if report || diskReport {
		a.status.Reports++
	}
	a.mu.Unlock()

	switch {
	case first:
		a.log.Info("service reached", slog.Int("failuresBefore", failures))
	case failures > 0:
		a.log.Info("service reached again", slog.Int("failuresBefore", failures))
	default:
		a.log.Debug("heartbeat sent", slog.Bool("report", report))
	}
	if report {
		a.counters.reportsSent.Add(1)
		a.log.Info("slow-peer report delivered", slog.Int("slowPeers", len(det.SlowPeers)),
			slog.Int("peers", det.Peers), slog.Bool("skipped", det.Skipped),
			slog.Float64("medianMs", det.MedianMs), slog.Float64("upperLimitMs", det.UpperLimitMs),
			slog.Any("slow", slowNames(det.SlowPeers)), slog.Time("next", s.NextReport()))
	}
	if diskReport {
		a.log.Info("slow-disk report delivered", slog.Any("slowDisks", slowDiskNames(hb.SlowDisks)),
			slog.Int("volumes", len(hb.DiskLatencies)))
	}
	if reply.Slow != wasSlow {
		if reply.Slow {
			a.log.Warn("this node is reported slow by its peers")
		} else if !first {
			a.log.Info("this node is no longer reported slow")
		}
	}
}

// wakeUp asks for a heartbeat now, unless one is asked for already.
func (a *actor) wakeUp() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Status returns a copy of the actor's status.
func (a *actor) Status() ServiceStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status
}

func slowDiskNames(disks []reports.SlowDisk) []string {
	names := make([]string, len(disks))
	for i, d := range disks {
		names[i] = d.Disk
	}
	return names
}

func slowNames(peers []reports.SlowPeer) []string {
	names := make([]string, len(peers))
	for i, p := range peers {
		names[i] = p.Node
	}
	return names
}
