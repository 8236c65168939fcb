package datanode

import (
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/slowpeer/slowpeer/reports"
)

// Validate returns the first broken rule of c, in plain words, or nil.
func (c Config) Validate() error {
	if err := reports.ValidateNode(c.ID); err != nil {
		return fmt.Errorf("id: %w", err)
	}
	if len(c.NameNodes) == 0 && !c.FollowNameNodes {
		return errors.New("namenode: at least one NameNode-side service URL is needed")
	}
	seen := map[string]bool{}
	for _, u := range c.NameNodes {
		if err := validateURL(u, false); err != nil {
			return fmt.Errorf("namenode: %w", err)
		}
		if seen[u] {
			return fmt.Errorf("namenode: %q is listed twice", u)
		}
		seen[u] = true
	}
	if err := c.validateSources(); err != nil {
		return err
	}
	if err := c.validateMetrics(); err != nil {
		return err
	}
	if err := c.validateProbes(); err != nil {
		return err
	}
	if err := c.validateDisks(); err != nil {
		return err
	}
	switch {
	case c.HeartbeatInterval <= 0:
		return fmt.Errorf("%s: %v is not positive", HeartbeatIntervalKey, c.HeartbeatInterval)
	case c.ReportInterval <= 0:
		return fmt.Errorf("%s: %v is not positive", ReportIntervalKey, c.ReportInterval)
	case c.MaxRetryBackoff < c.HeartbeatInterval:
		return fmt.Errorf("%s: %v is shorter than %s %v", MaxRetryBackoffKey, c.MaxRetryBackoff, HeartbeatIntervalKey, c.HeartbeatInterval)
	case c.HadoopJMX != "" && c.HadoopJMXInterval <= 0:
		return fmt.Errorf("%s: %v is not positive", HadoopJMXIntervalKey, c.HadoopJMXInterval)
	case c.HadoopJMXPeerPort < 0 || c.HadoopJMXPeerPort > 65535:
		return fmt.Errorf("%s: %d is outside [0, 65535]", HadoopJMXPeerPortKey, c.HadoopJMXPeerPort)
	}
	return nil
}

func (c Config) validateSources() error {
	if c.DataListener == nil && c.DataListen != "" {
		if _, _, err := net.SplitHostPort(c.DataListen); err != nil {
			return fmt.Errorf("data-listen: %q is not host:port", c.DataListen)
		}
	}
	seen := map[string]bool{}
	for _, p := range c.Peers {
		if err := reports.ValidateNode(p); err != nil {
			return fmt.Errorf("peers: %w", err)
		}
		if seen[p] {
			return fmt.Errorf("peers: %q is listed twice", p)
		}
		seen[p] = true
	}
	if c.HadoopJMX != "" {
		if err := validateURL(c.HadoopJMX, true); err != nil {
			return fmt.Errorf("hadoop-jmx: %w", err)
		}
		if len(c.Peers) > 0 {
			return errors.New("hadoop-jmx and peers are two latency sources: give one")
		}
		if c.PeerMetrics != nil {
			return errors.New("hadoop-jmx and an embedded PeerMetrics are two latency sources: give one")
		}
	}
	if c.HTTPListener == nil && c.HTTPListen != "" {
		if _, _, err := net.SplitHostPort(c.HTTPListen); err != nil {
			return fmt.Errorf("http-listen (dfs.datanode.http.address): %q is not host:port", c.HTTPListen)
		}
	}
	if c.FaultReceiveDelay < 0 {
		return fmt.Errorf("fault-receive-delay: %v is negative", c.FaultReceiveDelay)
	}
	return nil
}

func (c Config) validateMetrics() error {
	switch {
	case c.MinOutlierDetectionSamples < 0:
		return fmt.Errorf("%s: %d is negative", MinOutlierDetectionSamplesKey, c.MinOutlierDetectionSamples)
	case c.MinOutlierDetectionNodes < 1:
		return fmt.Errorf("%s: %d is less than 1", MinOutlierDetectionNodesKey, c.MinOutlierDetectionNodes)
	case c.LowThreshold < 0:
		return fmt.Errorf("%s: %v is negative", LowThresholdKey, c.LowThreshold)
	case c.RollingWindow <= 0:
		return fmt.Errorf("%s: %v is not positive", RollingWindowKey, c.RollingWindow)
	case c.RollingWindows < 1:
		return fmt.Errorf("%s: %d is less than 1", RollingWindowsKey, c.RollingWindows)
	}
	return nil
}

func (c Config) validateProbes() error {
	switch {
	case c.ProbeInterval <= 0:
		return fmt.Errorf("%s: %v is not positive", ProbeIntervalKey, c.ProbeInterval)
	case c.ProbePackets < 1 || c.ProbePackets > MaxProbePackets:
		return fmt.Errorf("%s: %d is outside [1, %d]", ProbePacketsKey, c.ProbePackets, MaxProbePackets)
	case c.ProbePacketBytes < 1 || c.ProbePacketBytes > MaxProbePacketBytes:
		return fmt.Errorf("%s: %d is outside [1, %d]", ProbePacketBytesKey, c.ProbePacketBytes, MaxProbePacketBytes)
	case c.ProbeMaxBytesPerSecond < 1:
		return fmt.Errorf("%s: %d is less than 1", ProbeMaxBytesPerSecondKey, c.ProbeMaxBytesPerSecond)
	case c.ProbeMinBitsPerSecond < 1 || c.ProbeMinBitsPerSecond > MaxProbeMinBitsPerSecond:
		return fmt.Errorf("%s: %d bit/s is outside [1, %d]", ProbeMinRateKey, c.ProbeMinBitsPerSecond, int64(MaxProbeMinBitsPerSecond))
	case c.ProbeTimeout <= 0:
		return fmt.Errorf("%s: %v is not positive", ProbeTimeoutKey, c.ProbeTimeout)
	case c.ProbeMaxFailures < 0:
		return fmt.Errorf("%s: %d is negative", ProbeMaxFailuresKey, c.ProbeMaxFailures)
	case c.ProbeCoverage <= 0:
		return fmt.Errorf("%s: %v is not positive", ProbeCoverageKey, c.ProbeCoverage)
	case c.ProbeConfirmBudget < 0 || c.ProbeConfirmBudget > MaxProbeConfirmBudget:
		return fmt.Errorf("%s: %d blocks a minute is outside [0, %d]", ProbeConfirmBudgetKey, c.ProbeConfirmBudget, MaxProbeConfirmBudget)
	}
	if bps := c.ProbeBytesPerSecond(); bps > float64(c.ProbeMaxBytesPerSecond) {
		return fmt.Errorf("probes would send %.0f bytes/s (slowpeer.probe.packets %d × slowpeer.probe.packet.size %d / slowpeer.probe.interval %v), more than slowpeer.probe.max.bandwidth %d",
			bps, c.ProbePackets, c.ProbePacketBytes, c.ProbeInterval, c.ProbeMaxBytesPerSecond)
	}
	return nil
}

// validateURL reports an error unless s is an absolute http or https URL
// with a host, without user information or a fragment, and without a query
// unless query is true.
func validateURL(s string, query bool) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a URL", s)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q is not an http or https URL", s)
	}
	if u.Host == "" {
		return fmt.Errorf("%q has no host", s)
	}
	if u.User != nil || u.Fragment != "" {
		return fmt.Errorf("%q carries user information or a fragment", s)
	}
	if !query && (u.RawQuery != "" || u.ForceQuery) {
		return fmt.Errorf("%q has a query; give the service's base URL", s)
	}
	return nil
}
