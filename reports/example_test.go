package reports_test

import (
	"errors"
	"fmt"

	"github.com/slowpeer/slowpeer/reports"
)

// A heartbeat body as an agent POSTs it to reports.HeartbeatPath, parsed
// strictly; a body with a field the heartbeat does not have is rejected
// with the reason the service counts it under.
func ExampleParseHeartbeat() {
	hb, err := reports.ParseHeartbeat([]byte(`{"node": "10.0.0.2:9866",
	  "slowPeers": [{"node": "10.0.0.5:9866", "latencyMs": 35.2, "medianMs": 2.1,
	                 "madMs": 0.74, "upperLimitMs": 6.3}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("from", hb.Node, "report:", hb.HasReport())
	for _, p := range hb.SlowPeers {
		fmt.Printf("  %s: %.1f ms > limit %.1f ms (median %.1f, MAD %.2f)\n",
			p.Node, p.LatencyMs, p.UpperLimitMs, p.MedianMs, p.MADMs)
	}

	_, err = reports.ParseHeartbeat([]byte(`{"node": "10.0.0.2:9866", "load": 3}`))
	if re, ok := errors.AsType[*reports.RejectError](err); ok {
		fmt.Printf("rejected (%s): %v\n", re.Reason, err)
	}
	// Output:
	// from 10.0.0.2:9866 report: true
	//   10.0.0.5:9866: 35.2 ms > limit 6.3 ms (median 2.1, MAD 0.74)
	// rejected (unknown_field): unknown field "load"
}
