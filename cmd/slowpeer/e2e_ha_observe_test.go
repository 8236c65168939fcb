//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/namenode"
)

// What TestHAFailover watches: the publishers of the namespace, the
// agent's heartbeats at each replica.

// publishers polls the published namespace every 10ms and keeps, for
// each owner session of its znodes, when it was first seen, and the first
// instant two owners stood there at once.
type publishers struct {
	mu      sync.Mutex
	first   map[int64]time.Time
	overlap string
	done    chan struct{}
	ended   chan struct{}
}

func watchPublishers(t *testing.T, conn *zk.Conn, ns string) *publishers {
	o := &publishers{first: map[int64]time.Time{}, done: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(o.ended)
		for {
			select {
			case <-o.done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			now := time.Now()
			children, _, err := conn.Children(ns)
			if err != nil {
				continue
			}
			owners := map[int64]string{}
			for _, ch := range children {
				if _, st, err := conn.Get(path.Join(ns, ch)); err == nil {
					owners[st.EphemeralOwner] = ch
				}
			}
			o.mu.Lock()
			for s := range owners {
				if _, ok := o.first[s]; !ok {
					o.first[s] = now
				}
			}
			if len(owners) > 1 && o.overlap == "" {
				o.overlap = fmt.Sprintf("at %s two publishers stood in %s: %v", now.Format(time.StampMilli), ns, owners)
			}
			o.mu.Unlock()
		}
	}()
	t.Cleanup(o.stop)
	return o
}

// waitOwner waits for an owner session not seen before other was, and
// returns it.
func (o *publishers) waitOwner(t *testing.T, other int64, within time.Duration) int64 {
	t.Helper()
	var got int64
	testenv.WaitFor(t, "a new publisher", within, func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		for s, at := range o.first {
			if s != other && (other == 0 || at.After(o.first[other])) {
				got = s
				return true
			}
		}
		return false
	})
	return got
}

func (o *publishers) since(owner int64, t0 time.Time) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.first[owner].Sub(t0)
}

func (o *publishers) stop() {
	select {
	case <-o.done:
	default:
		close(o.done)
	}
	<-o.ended
}

func (o *publishers) violation() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.overlap
}

// heartbeats polls each replica's /v1/datanodes every 50ms and keeps the
// longest pause between two heartbeats of the agent it saw, and how many
// it saw.
type heartbeats struct {
	mu   sync.Mutex
	last map[string]int64         // replica → the agent's lastHeartbeat, ms
	gap  map[string]time.Duration // replica → longest pause
	seen map[string]int           // replica → heartbeats seen
}

func watchHeartbeats(t *testing.T, replicas []string, agent string) *heartbeats {
	return watchHeartbeatsWith(t, &http.Client{Timeout: 200 * time.Millisecond}, replicas, agent)
}

// watchHeartbeatsWith is watchHeartbeats through client.
func watchHeartbeatsWith(t *testing.T, client *http.Client, replicas []string, agent string) *heartbeats {
	h := &heartbeats{last: map[string]int64{}, gap: map[string]time.Duration{}, seen: map[string]int{}}
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			for _, r := range replicas {
				resp, err := client.Get("http://" + r + namenode.DataNodesPath)
				if err != nil {
					continue
				}
				var dns []struct {
					Node          string `json:"node"`
					LastHeartbeat int64  `json:"lastHeartbeat"`
				}
				err = json.NewDecoder(resp.Body).Decode(&dns)
				resp.Body.Close()
				for _, d := range dns {
					if err != nil || d.Node != agent {
						continue
					}
					h.mu.Lock()
					if prev := h.last[r]; prev != 0 && d.LastHeartbeat > prev {
						h.gap[r] = max(h.gap[r], time.Duration(d.LastHeartbeat-prev)*time.Millisecond)
						h.seen[r]++
					}
					h.last[r] = d.LastHeartbeat
					h.mu.Unlock()
				}
			}
		}
	}()
	t.Cleanup(func() { close(done); <-ended })
	return h
}

func (h *heartbeats) maxGap(replica string) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gap[replica]
}

// waitMore waits until every replica has seen n more of the agent's
// heartbeats than it had when called.
func (h *heartbeats) waitMore(t *testing.T, replicas []string, n int, limit time.Duration) {
	t.Helper()
	h.mu.Lock()
	from := maps.Clone(h.seen)
	h.mu.Unlock()
	testenv.WaitFor(t, fmt.Sprintf("%d more heartbeats of the agent at every replica", n), limit, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, r := range replicas {
			if h.seen[r] < from[r]+n {
				return false
			}
		}
		return true
	})
}
