package namenode_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"

	"github.com/slowpeer/slowpeer/namenode"
)

// A DataNode reports one of its peers slow on its heartbeat; /slowpeers
// then names the peer with its reporter.
func Example() {
	cfg := namenode.DefaultConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	srv, err := namenode.New(cfg)
	if err != nil {
		panic(err)
	}
	h := srv.Handler()

	heartbeat := `{"node": "10.0.0.2:9866", "slowPeers": [{"node": "10.0.0.5:9866",` +
		` "latencyMs": 31.5, "medianMs": 2, "madMs": 0.5, "upperLimitMs": 6}]}`
	req := httptest.NewRequest("POST", namenode.HeartbeatPath, strings.NewReader(heartbeat))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Body)

	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", namenode.SlowPeersPath, nil))
	fmt.Println(w.Code, w.Body)
	// Output:
	// 200 {"slow":false}
	// 200 [{"SlowNode":"10.0.0.5:9866","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"10.0.0.2:9866","ReportedLatency":31.5,"MedianLatency":2,"MadLatency":0.5,"UpperLimitLatency":6}]}]
}
