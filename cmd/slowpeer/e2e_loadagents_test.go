//go:build e2e

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// The agents of TestServiceLoad. A worker holds one keep-alive connection
// and sends the heartbeats of its agents, each when it is due, over plain
// HTTP/1.1 written by hand: with net/http's client, a goroutine per agent
// and its transport's two per connection, the generator took as much CPU
// as the service it measured (0.55 of the 2 cores at 10 000 agents), and
// the wait for a CPU of either process became the tail of every latency.

// loadWorker sends the heartbeats of agents (indices of lc) over one
// connection to addr.
type loadWorker struct {
	addr   string
	lc     *loadCluster
	agents []int
	hb, ri time.Duration
	tally  *loadTally

	rng   *rand.Rand
	state []loadAgent // of each of agents
	buf   []byte      // the body being written
	ents  []loadEntry // its recent latencies
	// gzip: the service's last answer said it takes gzip bodies
	// (Accept-Encoding), so bodies over reports.GzipMinBytes go
	// compressed, as the agent's do.
	gzip bool
	zbuf bytes.Buffer

	conn net.Conn
	br   *bufio.Reader
}

// loadGzips are the workers' compressors, shared: one for each of 10 000
// workers, a megabyte each, kept the generator's collector busy on more
// than one of the machine's two cores.
var loadGzips = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, reports.GzipLevel)
	return zw
}}

// workers returns the workers of n agents: conns of them, agent i going to
// worker i % conns; with conns 0, one per agent, as real agents each hold
// a connection.
func loadWorkers(addr string, lc *loadCluster, conns int, hb, ri time.Duration, tally *loadTally) []*loadWorker {
	n := len(lc.nodes)
	if conns <= 0 || conns > n {
		conns = n
	}
	ws := make([]*loadWorker, conns)
	for i := range ws {
		ws[i] = &loadWorker{addr: addr, lc: lc, hb: hb, ri: ri, tally: tally, rng: rand.New(rand.NewPCG(uint64(i), 2))}
	}
	for i := range n {
		w := ws[i%conns]
		w.agents = append(w.agents, i)
		w.state = append(w.state, loadAgent{})
	}
	return ws
}

// run sends its agents' heartbeats from first on until ctx ends: agent i
// every hb from first + i·hb/n, each with the recent latencies of the
// blocks its coverage rounds ended since its last heartbeat and the
// answers to the probe requests of its last reply, the one due after its
// report phase carrying its report too, once every ri. A heartbeat sent
// late, because the worker still waited for the answer of an earlier one,
// counts from when it was due: a slow answer is charged to the heartbeats
// queued behind it too (one sent on time counts from its sending, not
// from a timer that fired late).
func (w *loadWorker) run(ctx context.Context, first time.Time, rec *loadRecorder) {
	defer w.close()
	n := len(w.lc.nodes)
	nextReport := make([]time.Time, len(w.agents))
	for j, i := range w.agents {
		nextReport[j] = first.Add(w.lc.reportPhase[i])
	}
	for round := first; ; round = round.Add(w.hb) {
		for j, i := range w.agents {
			due := round.Add(time.Duration(i) * w.hb / time.Duration(n))
			start := due
			if time.Now().Before(due) {
				if !sleepUntil(ctx, due) {
					return
				}
				start = time.Now()
			}
			report, endpoint := false, "heartbeat"
			if !due.Before(nextReport[j]) {
				report, endpoint = true, "heartbeat with report"
				nextReport[j] = nextReport[j].Add(w.ri)
			}
			body := w.body(&w.state[j], i, due.Sub(first), report)
			probes, err := w.post(ctx, body)
			if ctx.Err() != nil {
				return // the run's end, not the service's doing
			}
			if err == nil {
				w.state[j].probes = probes
			}
			rec.add(endpoint, start, time.Since(start), err)
		}
	}
}

// post sends one heartbeat and reads its answer, connecting first when it
// holds no connection; after an error it drops the connection. It returns
// the probe requests of the answer.
func (w *loadWorker) post(ctx context.Context, body []byte) ([]reports.ProbeRequest, error) {
	if w.conn == nil {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", w.addr)
		if err != nil {
			return nil, err
		}
		w.conn, w.br = c, bufio.NewReader(c)
	}
	probes, err := w.exchange(body)
	if err != nil {
		w.close()
	}
	return probes, err
}

func (w *loadWorker) exchange(body []byte) ([]reports.ProbeRequest, error) {
	w.conn.SetDeadline(time.Now().Add(10 * time.Second))
	encoding := ""
	if w.gzip && len(body) > reports.GzipMinBytes {
		w.zbuf.Reset()
		zw := loadGzips.Get().(*gzip.Writer)
		zw.Reset(&w.zbuf)
		zw.Write(body)
		zw.Close()
		loadGzips.Put(zw)
		body, encoding = w.zbuf.Bytes(), "Content-Encoding: gzip\r\n"
		w.tally.gzipped.Add(1)
	}
	w.tally.body(len(body))
	req := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n",
		reports.HeartbeatPath, w.addr, encoding, len(body))
	if _, err := w.conn.Write(append(req, body...)); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(w.br, nil)
	if err != nil {
		return nil, err
	}
	w.gzip = reports.AcceptsGzip(resp.Header)
	var reply reports.HeartbeatReply
	if err := readAnswer(resp, func(b []byte) bool {
		if bytes.Equal(b, replyNotSlow) || bytes.Equal(b, replySlow) {
			return true // most answers: no probe requests to read
		}
		r, _, err := reports.ParseHeartbeatReply(b)
		reply = r
		return err == nil
	}); err != nil {
		return nil, err
	}
	if resp.Close {
		return nil, fmt.Errorf("the service closed the connection (Connection: %s)", strconv.Quote(resp.Header.Get("Connection")))
	}
	w.tally.asked.Add(int64(len(reply.Probe)))
	return reply.Probe, nil
}

func (w *loadWorker) close() {
	if w.conn != nil {
		w.conn.Close()
		w.conn, w.br = nil, nil
	}
}
