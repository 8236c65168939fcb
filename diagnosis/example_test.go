package diagnosis_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
)

// Twelve DataNodes in two racks measure each other. 10.0.0.4 acknowledges
// late (a slow receiver), 10.0.0.7 sends late (a slow sender), and the
// link from 10.0.0.1 to 10.0.0.2 is bad in one direction.
func Example() {
	topo, err := diagnosis.ParseTopology(strings.NewReader(`
# host     rack
10.0.0.1   /rack1
10.0.0.2   /rack1
10.0.0.3   /rack1
10.0.0.4   /rack1
10.0.0.5   /rack1
10.0.0.6   /rack1
10.0.0.7   /rack2
10.0.0.8   /rack2
10.0.0.9   /rack2
10.0.0.10  /rack2
10.0.0.11  /rack2
10.0.0.12  /rack2
`))
	if err != nil {
		panic(err)
	}
	cfg := diagnosis.DefaultConfig()
	cfg.Topology = topo
	m, err := diagnosis.New(cfg)
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	node := func(k int) string { return fmt.Sprintf("10.0.0.%d:9866", k) }
	for i := 1; i <= 12; i++ {
		for j := 1; j <= 12; j++ {
			if i == j {
				continue
			}
			ms := 2 + 0.1*float64((i*j)%5) // a healthy cluster: 2 to 2.4 ms
			switch {
			case j == 4:
				ms *= 20
			case i == 7:
				ms *= 10
			case i == 1 && j == 2:
				ms = 80
			}
			if err := m.Add(node(i), node(j), ms, 1800, now.Add(-time.Minute)); err != nil {
				panic(err)
			}
		}
	}
	for _, f := range m.Diagnose(now) {
		fmt.Printf("%-8s %-13s %-13s reporters %2d, %5.1f ms, median %.1f ms\n",
			f.Kind, f.Node, f.Peer, f.Reporters, f.LatencyMs, f.MedianMs)
	}
	// Output:
	// link     10.0.0.1:9866 10.0.0.2:9866 reporters  1,  80.0 ms, median 2.2 ms
	// inbound  10.0.0.4:9866               reporters 11,  44.0 ms, median 2.2 ms
	// outbound 10.0.0.7:9866               reporters 11,  22.0 ms, median 2.2 ms
}

func ExampleParseTopology() {
	topo, err := diagnosis.ParseTopology(strings.NewReader(`
# net.topology.table.file.name: host, then rack
10.0.0.5          /dc1/rack1
dn6.example.com   /dc1/rack2
`))
	if err != nil {
		panic(err)
	}
	fmt.Println(topo.Rack("10.0.0.5:9866"))
	fmt.Println(topo.Rack("DN6.example.com:9866"))
	fmt.Printf("%q\n", topo.Rack("10.0.0.7:9866"))

	_, err = diagnosis.ParseTopology(strings.NewReader("10.0.0.5 /rack1\n10.0.0.6\n"))
	fmt.Println(err)
	// Output:
	// /dc1/rack1
	// /dc1/rack2
	// ""
	// parse topology: line 2: want two fields, "host rack", got 1
}
