package demo

import (
	"fmt"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/netlab"
)

// kindAckDelay is the kind of fault the agent makes itself, without
// privileges: it waits before acknowledging each packet it receives.
const kindAckDelay = "ack-delay"

// Fault is what makes the slow node slow, the value of "demo -fault
// KIND=VALUE": ack-delay=D, a rate limit made by the kernel (netlab) or a
// disk throttle (disklab). Make one with ParseFault or AckDelay; the zero
// Fault is no fault.
type Fault struct {
	kind  string           // kindAckDelay or a netlab.FaultKind
	delay time.Duration    // for ack-delay; 0: no fault
	rate  uint64           // bits per second, for the kernel's kinds
	lab   netlab.FaultKind // the kernel's kind, "" for ack-delay

	disk      string // kindDiskIOPS or kindDiskRate for a disk fault, "" otherwise
	diskIOPS  uint64 // the throttle of disk-iops, 0 for none
	diskBytes uint64 // the throttle of disk-rate in bytes per second, 0 for none
}

var labKinds = []netlab.FaultKind{netlab.FaultReceiveRate, netlab.FaultSendRate, netlab.FaultLinkRate, netlab.FaultPairRate}

// AckDelay is the fault of an agent that waits d before it acknowledges
// each packet it receives; 0 is no fault.
func AckDelay(d time.Duration) Fault { return Fault{kind: kindAckDelay, delay: d} }

// String writes the fault as the flag spells it, e.g. "send-rate=20mbit".
func (f Fault) String() string {
	if f.disk != "" {
		return f.diskString()
	}
	if f.none() {
		return "none"
	}
	if f.lab != "" {
		return string(f.lab) + "=" + netlab.FormatRate(f.rate)
	}
	return kindAckDelay + "=" + f.delay.String()
}

// none reports whether the demo has no slow node.
func (f Fault) none() bool {
	return f.lab == "" && f.delay == 0 && f.diskIOPS == 0 && f.diskBytes == 0
}

// ParseFault reads KIND=VALUE, or "none"; its errors name -fault.
func ParseFault(s string) (Fault, error) {
	if s == "none" {
		return Fault{kind: kindAckDelay}, nil
	}
	kind, value, ok := strings.Cut(s, "=")
	if !ok {
		return Fault{}, fmt.Errorf("-fault %q: want KIND=VALUE, e.g. ack-delay=50ms or send-rate=20mbit", s)
	}
	if kind == kindAckDelay {
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 || d > MaxSlowDelay {
			return Fault{}, fmt.Errorf("-fault %s: want a delay from 0 to %v, e.g. 50ms", s, MaxSlowDelay)
		}
		return Fault{kind: kind, delay: d}, nil
	}
	if kind == kindDiskIOPS || kind == kindDiskRate {
		return parseDiskFault(kind, value, s)
	}
	for _, k := range labKinds {
		if kind == string(k) {
			bps, err := netlab.ParseRate(value)
			if err != nil {
				return Fault{}, fmt.Errorf("-fault %s: %w", s, err)
			}
			return Fault{kind: kind, rate: bps, lab: k}, nil
		}
	}
	return Fault{}, fmt.Errorf("-fault %q: unknown kind %q (want ack-delay, receive-rate, send-rate, link-rate, pair-rate, disk-iops or disk-rate)", s, kind)
}

// describe says in words what the fault does to the slow node.
func (f Fault) describe(peer string) string {
	rate := netlab.FormatRate(f.rate)
	switch f.lab {
	case netlab.FaultReceiveRate:
		return "traffic toward it limited to " + rate + " (htb)"
	case netlab.FaultSendRate:
		return "traffic from it limited to " + rate + " (htb)"
	case netlab.FaultLinkRate:
		return "traffic to and from it limited to " + rate + " (htb)"
	case netlab.FaultPairRate:
		return "traffic between it and " + peer + " limited to " + rate + " (htb, u32)"
	}
	return fmt.Sprintf("waits %v before it acknowledges each packet", f.delay)
}
