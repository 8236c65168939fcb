package dashboard_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/reports"
)

// A Source gives the View; the parts it leaves nil say "not available".
func Example() {
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	src := dashboard.SourceFunc(func(now time.Time) dashboard.View {
		return dashboard.View{
			SlowNodes: []dashboard.SlowNode{{Node: "10.0.0.5:9866", Reporters: []reports.Reporter{
				{Node: "10.0.0.2:9866", LatencyMs: 35.2, MedianMs: 2.1},
			}}},
			DataNodes: []dashboard.DataNode{{Node: "10.0.0.2:9866", State: dashboard.Live, LastHeartbeat: now}},
		}
	})
	d := dashboard.New(src, dashboard.Config{Now: func() time.Time { return now }})
	rec := httptest.NewRecorder()
	d.ServeHTTP(rec, httptest.NewRequest("GET", dashboard.Path, nil))
	fmt.Println(rec.Code)
	for line := range strings.Lines(rec.Body.String()) {
		if strings.HasPrefix(line, `<tr><th scope="row">10.0.0.5:9866`) || strings.HasPrefix(line, "<p>Not available") {
			fmt.Print(line)
		}
	}
	// Output:
	// 200
	// <p>Not available: this service keeps no slow set.</p>
	// <p>Not available: the fast path is off (slowpeer.suspect.enabled).</p>
	// <tr><th scope="row">10.0.0.5:9866</th><td>1: 10.0.0.2:9866</td><td>35.2</td><td>2.10</td><td>16.8×</td><td><time datetime="2026-12-01T08:00:00Z">2026-12-01 08:00:00 UTC</time> (for 0s)</td><td>not available</td></tr>
	// <p>Not available: this service does not diagnose slow nodes.</p>
	// <p>Not available: this service takes no disk statistics.</p>
	// <p>Not available: this service has no HiveServer picker.</p>
	// <p>Not available: this service is not registered in ZooKeeper or etcd.</p>
}
