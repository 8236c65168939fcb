package reports_test

import (
	"encoding/json"
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

// A node id with the characters the Prometheus text format escapes, as a
// label value of a sample.
func ExampleQuoteLabel() {
	fmt.Printf("slowpeer_slowset_member{node=%s} 1\n", reports.QuoteLabel(`odd"host\name:1`))
	// Output:
	// slowpeer_slowset_member{node="odd\"host\\name:1"} 1
}

// The refusal of a request, as a service answers it and as a client
// reads it back: one printable line.
func ExampleErrorMessage() {
	body, _ := json.Marshal(reports.ErrorBody{Error: "node: missing node id\n(and a second line)"})
	msg, ok := reports.ErrorMessage(body)
	fmt.Printf("%s\n%q %v\n", body, msg, ok)
	_, ok = reports.ErrorMessage([]byte("<html>502 Bad Gateway</html>"))
	fmt.Println(ok)
	// Output:
	// {"error":"node: missing node id\n(and a second line)"}
	// "node: missing node id (and a second line)" true
	// false
}
