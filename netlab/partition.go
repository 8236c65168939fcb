package netlab

import (
	"context"
	"fmt"
)

// Cut partitions hosts a and b: each host's kernel discards every packet
// it would send to the other (a blackhole route), so nothing passes
// either way while both stay on the bridge and reach every other host.
// A connection open between them goes silent, as across a partition (no
// reset, no error: its segments are dropped and retransmitted); a new
// one fails at once (the kernel refuses to route it). Heal ends the cut.
func (l *Lab) Cut(ctx context.Context, a, b int) error {
	return l.blackhole(ctx, "add", a, b)
}

// Heal ends the cut between hosts a and b (Cut): what was held is
// retransmitted, and new connections pass.
func (l *Lab) Heal(ctx context.Context, a, b int) error {
	return l.blackhole(ctx, "del", a, b)
}

func (l *Lab) blackhole(ctx context.Context, op string, a, b int) error {
	if a < 0 || b < 0 || a >= len(l.hosts) || b >= len(l.hosts) || a == b {
		return fmt.Errorf("netlab: cut between hosts %d and %d of %d", a, b, len(l.hosts))
	}
	ha, hb := l.hosts[a], l.hosts[b]
	return runAll(ctx,
		[]string{"ip", "-n", ha.Namespace, "route", op, "blackhole", hb.Addr.String() + "/32"},
		[]string{"ip", "-n", hb.Namespace, "route", op, "blackhole", ha.Addr.String() + "/32"},
	)
}
