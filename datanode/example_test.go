package datanode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/reports"
)

// A storage system written in Go times its own replication pipeline: after
// each packet that the downstream replica acknowledged, it records how long
// the mirror took. PeerMetrics keeps the rolling averages and runs Hadoop's
// outlier test over them.
func ExamplePeerMetrics() {
	cfg := datanode.DefaultConfig()
	cfg.MinOutlierDetectionSamples = 100 // Hadoop waits for 1000 per peer
	metrics := datanode.NewPeerMetrics(cfg)

	// The replication path, for 12 downstream peers; one is slow.
	for packet := range 200 {
		for i := 1; i <= 12; i++ {
			peer := "10.0.0." + strconv.Itoa(i) + ":9866"
			elapsed := 2*time.Millisecond + time.Duration(packet%3)*100*time.Microsecond
			if i == 7 {
				elapsed = 40 * time.Millisecond
			}
			metrics.AddSendPacketDownstream(peer, elapsed)
		}
	}

	d := metrics.Detect(time.Now())
	fmt.Printf("%d peers, median %.1f ms, upper limit %.1f ms\n", d.Peers, d.MedianMs, d.UpperLimitMs)
	for _, p := range d.SlowPeers {
		fmt.Printf("slow: %s at %.1f ms\n", p.Node, p.LatencyMs)
	}
	// Output:
	// 12 peers, median 2.1 ms, upper limit 6.3 ms
	// slow: 10.0.0.7:9866 at 40.0 ms
}

// An Agent sends the embedded PeerMetrics' report on its heartbeats to
// every NameNode-side service. Here the service is a stand-in that prints
// the first heartbeat it gets; the report is due at once.
func ExampleAgent() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var hb reports.Heartbeat
		if err := json.NewDecoder(r.Body).Decode(&hb); err == nil && ctx.Err() == nil {
			fmt.Println(r.Method, r.URL.Path, hb.Node, "reports", hb.SlowPeers)
			cancel()
		}
		w.Write([]byte(`{"slow":false}`))
	}))
	defer service.Close()

	cfg := datanode.DefaultConfig()
	cfg.ID = "10.0.0.2:9866"
	cfg.NameNodes = []string{service.URL}
	cfg.MinOutlierDetectionSamples = 10
	cfg.PeerMetrics = datanode.NewPeerMetrics(cfg)
	for i := 3; i <= 13; i++ {
		for range 20 {
			ms := 2 * time.Millisecond
			if i == 5 {
				ms = 35 * time.Millisecond
			}
			cfg.PeerMetrics.AddSendPacketDownstream("10.0.0."+strconv.Itoa(i)+":9866", ms)
		}
	}
	agent, err := datanode.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := agent.Run(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// POST /v1/heartbeat 10.0.0.2:9866 reports [{10.0.0.5:9866 35 2 0 6}]
}
