package namenode

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// benchClient posts heartbeats on one keep-alive connection, reading
// each answer with as little work as it can, so that the allocations a
// benchmark reports are the server's.
type benchClient struct {
	c   net.Conn
	br  *bufio.Reader
	req []byte
}

func newBenchClient(b *testing.B, addr string, body []byte) *benchClient {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	req := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: %d\r\n"+
		"Content-Type: application/json\r\nAccept-Encoding: gzip\r\n\r\n%s", HeartbeatPath, addr, len(body), body)
	return &benchClient{c: c, br: bufio.NewReaderSize(c, 512), req: req}
}

// post sends the heartbeat and reads the answer, which must be 200.
func (c *benchClient) post() error {
	if _, err := c.c.Write(c.req); err != nil {
		return err
	}
	length := -1
	for first := true; ; first = false {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if first && !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
			return fmt.Errorf("answer %q", line)
		}
		if len(line) == 2 {
			break
		}
		if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
			length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
	}
	if length < 0 {
		return fmt.Errorf("answer without Content-Length")
	}
	_, err := c.br.Discard(length)
	return err
}

// BenchmarkLaneHeartbeat is one heartbeat (a typical report of 3 slow
// peers) over a keep-alive loopback connection, answered by the lane and
// by net/http, with the same Server behind both.
//
//	go test ./namenode -run '^$' -bench LaneHeartbeat -count 5
func BenchmarkLaneHeartbeat(b *testing.B) {
	for _, useLane := range []bool{true, false} {
		b.Run(map[bool]string{true: "lane", false: "net-http"}[useLane], func(b *testing.B) {
			s, _, _ := newTestServer(b, func(c *Config) { c.Logger = slog.New(slog.DiscardHandler) })
			_, addr := startLane(b, s, useLane, nil)
			c := newBenchClient(b, addr, typicalHeartbeat("10.1.0.1:9866", 3))
			b.ReportAllocs()
			for b.Loop() {
				if err := c.post(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIdleConnections opens 2 000 connections, each posts one
// heartbeat and then waits, as an agent's does between heartbeats, and
// reports the heap and stacks they hold, per connection, with the lane
// and with net/http: the server's and the client's, whose share is
// about 1 KB (a 512-byte reader, its request and its net.Conn).
//
//	go test ./namenode -run '^$' -bench IdleConnections -benchtime 1x -count 3
func BenchmarkIdleConnections(b *testing.B) {
	const conns = 2000
	for _, useLane := range []bool{true, false} {
		b.Run(map[bool]string{true: "lane", false: "net-http"}[useLane], func(b *testing.B) {
			s, _, _ := newTestServer(b, func(c *Config) { c.Logger = slog.New(slog.DiscardHandler) })
			_, addr := startLane(b, s, useLane, nil)
			for b.Loop() {
				before := held()
				clients := make([]*benchClient, conns)
				for i := range clients {
					clients[i] = newBenchClient(b, addr, typicalHeartbeat(fmt.Sprintf("10.1.%d.%d:9866", i/250, 1+i%250), 1))
					if err := clients[i].post(); err != nil {
						b.Fatal(err)
					}
				}
				time.Sleep(100 * time.Millisecond) // the last answers' goroutines park
				b.ReportMetric(float64(held()-before)/conns, "B/conn")
				for _, c := range clients {
					c.c.Close()
				}
			}
		})
	}
}

// held is the heap in use and the goroutine stacks, after a collection.
func held() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}
