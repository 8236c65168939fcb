package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/netlab"
)

// demoAckDelay is the kind of fault the agent makes itself, without
// privileges: it waits before acknowledging each packet it receives.
const demoAckDelay = "ack-delay"

// demoFault is the value of "demo -fault KIND=VALUE": ack-delay=D, or a
// rate limit made by the kernel (netlab).
type demoFault struct {
	kind  string           // demoAckDelay or a netlab.FaultKind
	delay time.Duration    // for ack-delay; 0: no fault
	rate  uint64           // bits per second, for the kernel's kinds
	lab   netlab.FaultKind // the kernel's kind, "" for ack-delay
	spec  string           // as given, for messages

	disk      string // demoDiskIOPS or demoDiskRate for a disk fault, "" otherwise
	diskIOPS  uint64 // the throttle of disk-iops, 0 for none
	diskBytes uint64 // the throttle of disk-rate in bytes per second, 0 for none
}

var demoLabKinds = []netlab.FaultKind{netlab.FaultReceiveRate, netlab.FaultSendRate, netlab.FaultLinkRate, netlab.FaultPairRate}

// String writes the fault as the flag spells it, e.g. "send-rate=20mbit".
func (f demoFault) String() string {
	if f.disk != "" {
		return f.diskString()
	}
	if f.none() {
		return "none"
	}
	if f.lab != "" {
		return string(f.lab) + "=" + netlab.FormatRate(f.rate)
	}
	return demoAckDelay + "=" + f.delay.String()
}

// none reports whether the demo has no slow node.
func (f demoFault) none() bool {
	return f.lab == "" && f.delay == 0 && f.diskIOPS == 0 && f.diskBytes == 0
}

// parseDemoFault reads KIND=VALUE, or "none".
func parseDemoFault(s string) (demoFault, error) {
	if s == "none" {
		return demoFault{kind: demoAckDelay, spec: s}, nil
	}
	kind, value, ok := strings.Cut(s, "=")
	if !ok {
		return demoFault{}, fmt.Errorf("-fault %q: want KIND=VALUE, e.g. ack-delay=50ms or send-rate=20mbit", s)
	}
	if kind == demoAckDelay {
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 || d > demoMaxSlowDelay {
			return demoFault{}, fmt.Errorf("-fault %s: want a delay from 0 to %v, e.g. 50ms", s, demoMaxSlowDelay)
		}
		return demoFault{kind: kind, delay: d, spec: s}, nil
	}
	if kind == demoDiskIOPS || kind == demoDiskRate {
		return parseDiskFault(kind, value, s)
	}
	for _, k := range demoLabKinds {
		if kind == string(k) {
			bps, err := netlab.ParseRate(value)
			if err != nil {
				return demoFault{}, fmt.Errorf("-fault %s: %w", s, err)
			}
			return demoFault{kind: kind, rate: bps, lab: k, spec: s}, nil
		}
	}
	return demoFault{}, fmt.Errorf("-fault %q: unknown kind %q (want ack-delay, receive-rate, send-rate, link-rate, pair-rate, disk-iops or disk-rate)", s, kind)
}

// describe says in words what the fault does to the slow node.
func (f demoFault) describe(peer string) string {
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
