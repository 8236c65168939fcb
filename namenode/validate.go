package namenode

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// maxInterval keeps 3 × the report interval and the dead-node expiry far
// from overflowing a Duration.
const maxInterval = 365 * 24 * time.Hour

// Validate returns an error naming the first broken rule, or nil.
func (c Config) Validate() error {
	durations := []struct {
		key string
		d   time.Duration
	}{
		{HeartbeatIntervalKey, c.HeartbeatInterval},
		{OutliersReportIntervalKey, c.OutliersReportInterval},
		{HeartbeatRecheckIntervalKey, c.HeartbeatRecheckInterval},
		{StaleIntervalKey, c.StaleInterval},
	}
	for _, f := range durations {
		if f.d <= 0 {
			return fmt.Errorf("%s must be more than zero, got %v", f.key, f.d)
		}
		if f.d > maxInterval {
			return fmt.Errorf("%s must be at most %v, got %v", f.key, maxInterval, f.d)
		}
	}
	counts := []struct {
		key string
		n   int
	}{
		{MaxNodesToReportKey, c.MaxNodesToReport},
		{MaxSlowPeerCollectNodesKey, c.MaxSlowPeerCollectNodes},
	}
	for _, f := range counts {
		if f.n < 1 || f.n > MaxTop {
			return fmt.Errorf("%s must be between 1 and %d, got %d", f.key, MaxTop, f.n)
		}
	}
	if c.SlowNodesFloor < 0 {
		return fmt.Errorf("%s must not be negative, got %v", SlowNodesFloorKey, c.SlowNodesFloor)
	}
	if c.ShutdownTimeout <= 0 {
		return fmt.Errorf("shutdown timeout must be more than zero, got %v", c.ShutdownTimeout)
	}
	if err := c.validateAuth(); err != nil {
		return err
	}
	if err := c.SlowSet.Validate(); err != nil {
		return err
	}
	if err := c.Disks.Validate(); err != nil {
		return err
	}
	if c.SuspectEnabled {
		sc := c.Suspect // as newFastPath sets it; validateLimits checks the key
		sc.MaxPeers = min(max(c.MaxPeerLatencies, 1), reports.MaxPeerLatencies)
		if err := sc.Validate(); err != nil {
			return err
		}
	}
	return c.validateLimits()
}

// validateToken accepts an empty token (no auth) or a token of printable
// ASCII without blanks, as a bearer token in an HTTP header must be.
func validateToken(tok string) error {
	if tok == "" {
		return nil
	}
	if strings.IndexFunc(tok, func(r rune) bool { return r <= ' ' || r >= 0x7f }) >= 0 {
		return errors.New("auth token must be printable ASCII without blanks")
	}
	return nil
}
