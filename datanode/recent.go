package datanode

import (
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// maxRecentLogBlocks bounds the blocks the recent log holds for services
// that have not had them yet (one that does not answer); past it the
// oldest go, counted.
const maxRecentLogBlocks = 4096

// Block is one probe block the agent timed to its end: the peer, when the
// block ended, the median latency of its packets, and the confirmation
// round that asked for it (reports.ProbeRequest.Round), 0 for the agent's
// own.
type Block struct {
	Peer   string
	End    time.Time
	Median time.Duration
	Round  int64
}

// RecentLatencies summarises blocks, oldest first, as a heartbeat's
// recentLatencies: one entry per peer and round, in the order of their
// latest block, with the median of the blocks' medians (the latest
// reports.MaxRecentBlocks of them) rounded to 4 significant digits and
// their count. Of more than reports.MaxRecentLatencies entries the oldest
// are left out; dropped counts their blocks. Blocks whose peer is not a
// node id or whose latency is not valid are left out, uncounted. The
// simulator summarises its agents' blocks with it.
func RecentLatencies(blocks []Block) (rs []reports.RecentLatency, dropped int) {
	type key struct {
		peer  string
		round int64
	}
	groups := map[key][]float64{}
	var order []key // by latest block, oldest first
	for _, b := range blocks {
		ms := float64(b.Median) / float64(time.Millisecond)
		if reports.ValidateNode(b.Peer) != nil || reports.ValidateLatency(ms) != nil {
			continue
		}
		k := key{b.Peer, b.Round}
		if _, ok := groups[k]; ok {
			order = slices.DeleteFunc(order, func(x key) bool { return x == k })
		}
		groups[k] = append(groups[k], ms)
		order = append(order, k)
	}
	if n := len(order) - reports.MaxRecentLatencies; n > 0 {
		for _, k := range order[:n] {
			dropped += len(groups[k])
		}
		order = order[n:]
	}
	rs = make([]reports.RecentLatency, 0, len(order))
	for _, k := range order {
		ms := groups[k]
		ms = ms[max(0, len(ms)-reports.MaxRecentBlocks):]
		rs = append(rs, reports.RecentLatency{Node: k.peer, LatencyMs: significant4(median(ms)),
			Blocks: int64(len(ms)), Round: k.round})
	}
	return rs, dropped
}

// median returns the median of v, which it sorts; v is not empty.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// significant4 rounds v to 4 significant digits.
func significant4(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	if err != nil {
		panic("BUG: significant4: " + err.Error())
	}
	return r
}

// recentLog keeps the agent's completed probe blocks until the heartbeat
// to every service has carried them: each service's actor has a cursor,
// which moves past the blocks its heartbeat carried once the service
// acknowledged it, so a heartbeat that failed carries them again and a
// service that does not answer delays no other. It holds at most
// maxRecentLogBlocks blocks; past them the oldest go, counted in dropped.
//
// It is safe for concurrent use; the zero value is not usable (newRecentLog).
type recentLog struct {
	dropped func(blocks int) // counts blocks dropped before every service had them

	mu      sync.Mutex
	blocks  []Block           // oldest first; guarded by mu
	first   uint64            // the sequence number of blocks[0]; guarded by mu
	cursors map[*actor]uint64 // each actor's next block; guarded by mu
}

func newRecentLog(dropped func(blocks int)) *recentLog {
	return &recentLog{dropped: dropped, cursors: map[*actor]uint64{}}
}

// add keeps b until every actor's heartbeat carried it; with no actor
// there is nobody to carry it.
func (l *recentLog) add(b Block) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.cursors) == 0 {
		return
	}
	l.blocks = append(l.blocks, b)
	if n := len(l.blocks) - maxRecentLogBlocks; n > 0 {
		l.trim(l.first + uint64(n))
	}
}

// join gives a an empty cursor: its heartbeats carry the blocks that
// end from now on.
func (l *recentLog) join(a *actor) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cursors[a] = l.first + uint64(len(l.blocks))
}

// leave drops a's cursor.
func (l *recentLog) leave(a *actor) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.cursors, a)
	l.trim(l.first)
}

// pending returns the recentLatencies of a's next heartbeat, the
// sequence number to pass to carried once it is delivered, and how many
// blocks it leaves out past reports.MaxRecentLatencies entries.
func (l *recentLog) pending(a *actor) (rs []reports.RecentLatency, end uint64, dropped int) {
	l.mu.Lock()
	from, ok := l.cursors[a]
	end = l.first + uint64(len(l.blocks))
	var bs []Block
	if ok {
		bs = slices.Clone(l.blocks[from-l.first:])
	}
	l.mu.Unlock()
	if len(bs) == 0 {
		return nil, end, 0
	}
	rs, dropped = RecentLatencies(bs)
	return rs, end, dropped
}

// carried moves a's cursor to end: its service acknowledged a heartbeat
// with the blocks before it.
func (l *recentLog) carried(a *actor, end uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.cursors[a]; ok && end > c {
		l.cursors[a] = end
	}
	l.trim(l.first)
}

// trim drops the blocks before sequence number upTo and those every
// cursor has passed; a cursor behind upTo moves to it, and the blocks it
// had not had are counted. l.mu is held.
func (l *recentLog) trim(upTo uint64) {
	lost := 0
	oldest := l.first + uint64(len(l.blocks))
	for a, c := range l.cursors {
		if c < upTo {
			lost = max(lost, int(upTo-c))
			c = upTo
			l.cursors[a] = c
		}
		oldest = min(oldest, c)
	}
	if lost > 0 && l.dropped != nil {
		l.dropped(lost)
	}
	if oldest > l.first {
		l.blocks = slices.Delete(l.blocks, 0, int(oldest-l.first))
		l.first = oldest
	}
}
