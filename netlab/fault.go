package netlab

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// FaultKind says which traffic of a host a Fault slows.
type FaultKind string

// The kernel-made fault kinds (DESIGN.md, "demo -fault").
const (
	FaultReceiveRate FaultKind = "receive-rate" // traffic toward the host
	FaultSendRate    FaultKind = "send-rate"    // traffic from the host
	FaultLinkRate    FaultKind = "link-rate"    // both directions
	FaultPairRate    FaultKind = "pair-rate"    // both directions, between the host and Peer only
)

// Fault limits the rate of some of one host's traffic.
type Fault struct {
	Kind FaultKind
	// Host is the index of the slow host; Peer, for FaultPairRate, the
	// index of the other end of the bad link.
	Host, Peer int
	// BitsPerSecond is the rate the traffic is limited to.
	BitsPerSecond uint64
}

// String gives the fault as the demo's flag spells it, e.g.
// "send-rate=20mbit".
func (f Fault) String() string { return string(f.Kind) + "=" + FormatRate(f.BitsPerSecond) }

// minBurstBytes is the smallest token bucket a limit gets: two Ethernet
// frames. htb sends a segment larger than its bucket (veth hands the
// qdisc GSO segments of up to 64 KiB) and lets the class wait off the
// debt, so a small bucket costs no drops. It must be small: a bucket of
// several packets lets a sparse flow through at full speed, where a slow
// link delays every packet by its size over the rate.
const minBurstBytes = 3000

// Inject applies f. A host has at most one fault; injecting a second on
// the same host fails.
func (l *Lab) Inject(ctx context.Context, f Fault) error {
	if f.Host < 0 || f.Host >= len(l.hosts) {
		return fmt.Errorf("netlab: fault on host %d of %d", f.Host, len(l.hosts))
	}
	if f.BitsPerSecond == 0 {
		return fmt.Errorf("netlab: fault %s: the rate must be above 0", f)
	}
	h := l.hosts[f.Host]
	out := []string{"ip", "netns", "exec", h.Namespace, "tc"} // on eth0: what the host sends
	in := []string{"ip", "netns", "exec", l.switchNS, "tc"}   // on the bridge port: what it receives
	outDev, inDev := "eth0", h.port
	switch f.Kind {
	case FaultSendRate:
		return limitAll(ctx, out, outDev, f.BitsPerSecond)
	case FaultReceiveRate:
		return limitAll(ctx, in, inDev, f.BitsPerSecond)
	case FaultLinkRate:
		if err := limitAll(ctx, out, outDev, f.BitsPerSecond); err != nil {
			return err
		}
		return limitAll(ctx, in, inDev, f.BitsPerSecond)
	case FaultPairRate:
		if f.Peer < 0 || f.Peer >= len(l.hosts) || f.Peer == f.Host {
			return fmt.Errorf("netlab: fault %s: peer %d is not another host of %d", f, f.Peer, len(l.hosts))
		}
		peer := l.hosts[f.Peer].Addr.String() + "/32"
		if err := htbPair(ctx, out, outDev, "dst", peer, f.BitsPerSecond); err != nil {
			return err
		}
		return htbPair(ctx, in, inDev, "src", peer, f.BitsPerSecond)
	}
	return fmt.Errorf("netlab: unknown fault kind %q", f.Kind)
}

// limitAll limits everything leaving dev but small packets (smallBytes). It
// is an htb, not a tbf qdisc: a tbf drops a GSO segment larger than its
// bucket, and the bucket must be small (minBurstBytes).
func limitAll(ctx context.Context, tc []string, dev string, bps uint64) error {
	return shape(ctx, tc, dev, bps, "2", nil)
}

// htbPair limits only the packets leaving dev whose dir ("src" or "dst")
// address is in cidr, but small packets (smallBytes); everything else
// passes at full speed.
func htbPair(ctx context.Context, tc []string, dev, dir, cidr string, bps uint64) error {
	return shape(ctx, tc, dev, bps, "1", []string{"match", "ip", dir, cidr})
}

// smallBytes is the IP length below which a packet passes a limit
// untouched: a TCP acknowledgement, or one of the probes' 5-byte acks.
// A host's default qdisc, fq_codel, serves such sparse flows before the
// bulk ones; the lab's kernel need not have it (htb and u32 are all
// a fault needs), so the limit lets them by itself. Without that, every
// acknowledgement a slow sender sends would wait behind the data queued
// ahead of it, and its peers would see it slow in both directions.
const smallBytes = 128

// shape puts an htb on dev whose class 1:2 is limited to bps and class
// 1:1 is not; packets under smallBytes go to 1:1, then those that match
// (u32 selectors) to 1:2, the rest to the default class ("1" or "2").
func shape(ctx context.Context, tc []string, dev string, bps uint64, def string, match []string) error {
	b := strconv.FormatUint(burst(bps), 10)
	cmds := [][]string{
		append(tc, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", def),
		append(tc, "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", "100gbit"),
		append(tc, "class", "add", "dev", dev, "parent", "1:", "classid", "1:2", "htb",
			"rate", strconv.FormatUint(bps, 10)+"bit", "burst", b, "cburst", b),
		append(tc, "filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "1",
			"u32", "match", "u16", "0x0000", fmt.Sprintf("%#04x", 0xffff&^(smallBytes-1)), "at", "2", "flowid", "1:1"),
	}
	if match != nil {
		cmds = append(cmds, append(append(append(tc, "filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "2", "u32"),
			match...), "flowid", "1:2"))
	}
	return runAll(ctx, cmds...)
}

// burst is the token bucket for a rate: 1 ms of traffic, at least
// minBurstBytes.
func burst(bps uint64) uint64 { return max(bps/8/1000, minBurstBytes) }

// ParseRate reads a rate as tc spells it: a number with an optional
// bit or byte unit, "20mbit", "1gbit", "500kbit", "100mbps" (bytes per
// second), or a bare number of bits per second.
func ParseRate(s string) (uint64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], t[i:]
	}
	mult, ok := rateUnits[unit]
	if !ok {
		return 0, fmt.Errorf("rate %q: unknown unit %q (want bit, kbit, mbit, gbit, bps, kbps, mbps, gbps)", s, unit)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || v*mult > 1e12 {
		return 0, fmt.Errorf("rate %q: want a number above 0 and at most 1tbit", s)
	}
	return uint64(v * mult), nil
}

var rateUnits = map[string]float64{
	"": 1, "bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9,
	"bps": 8, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9,
}

// FormatRate writes bits per second in the largest unit that keeps it
// whole: 20000000 → "20mbit".
func FormatRate(bps uint64) string {
	for _, u := range []struct {
		name string
		v    uint64
	}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}} {
		if bps >= u.v && bps%u.v == 0 {
			return strconv.FormatUint(bps/u.v, 10) + u.name
		}
	}
	return strconv.FormatUint(bps, 10) + "bit"
}
