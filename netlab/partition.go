package netlab

import (
	"context"
	"fmt"
)

// Cut partitions hosts a and b: each host's kernel sorts every IP packet
// it would send to the other (htb and u32, as Inject) into a queue of no
// room (pfifo limit 0), which drops it, so nothing passes either way while both
// stay on the bridge and reach every other host. Nothing tells either end:
// a connection open between them goes silent (no reset, no error, its
// segments retransmitted into the void) and a new one waits for its SYN's
// answer, as across a real partition. A host that has a rate fault
// (Inject) cannot be cut. Heal ends the cut.
func (l *Lab) Cut(ctx context.Context, a, b int) error {
	if err := l.checkPair(a, b); err != nil {
		return err
	}
	for _, p := range [][2]Host{{l.hosts[a], l.hosts[b]}, {l.hosts[b], l.hosts[a]}} {
		tc := []string{"ip", "netns", "exec", p[0].Namespace, "tc"}
		if err := runAll(ctx,
			append(tc, "qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb", "default", "1"),
			append(tc, "class", "add", "dev", "eth0", "parent", "1:", "classid", "1:1", "htb", "rate", "100gbit"),
			append(tc, "class", "add", "dev", "eth0", "parent", "1:", "classid", "1:2", "htb", "rate", "100gbit"),
			append(tc, "qdisc", "add", "dev", "eth0", "parent", "1:2", "handle", "2:", "pfifo", "limit", "0"),
			append(tc, "filter", "add", "dev", "eth0", "parent", "1:", "protocol", "ip", "prio", "1",
				"u32", "match", "ip", "dst", p[1].Addr.String()+"/32", "flowid", "1:2"),
		); err != nil {
			return fmt.Errorf("netlab: cut hosts %d and %d: %w", a, b, err)
		}
	}
	return nil
}

// Heal ends the cut between hosts a and b (Cut): what TCP sends again
// arrives, and new connections pass.
func (l *Lab) Heal(ctx context.Context, a, b int) error {
	if err := l.checkPair(a, b); err != nil {
		return err
	}
	return runAll(ctx,
		[]string{"ip", "netns", "exec", l.hosts[a].Namespace, "tc", "qdisc", "del", "dev", "eth0", "root"},
		[]string{"ip", "netns", "exec", l.hosts[b].Namespace, "tc", "qdisc", "del", "dev", "eth0", "root"},
	)
}

func (l *Lab) checkPair(a, b int) error {
	if a < 0 || b < 0 || a >= len(l.hosts) || b >= len(l.hosts) || a == b {
		return fmt.Errorf("netlab: cut between hosts %d and %d of %d", a, b, len(l.hosts))
	}
	return nil
}
