package reports

import "strings"

// ReportedDisk is one entry of the NameNode's slow-disk report
// (GET /slowdisks, and the JMX NameNodeStatus SlowDisksReport): a volume
// of a DataNode and the latencies of the operations it was reported slow
// in. Its JSON is Hadoop's SlowDiskTracker.DiskLatency, field names
// included.
type ReportedDisk struct {
	// ID is the disk's SlowDiskID, "host:port:volume": the reporting
	// node's id and the volume's name (SlowDiskID).
	ID string `json:"SlowDiskID"`
	// Latencies maps a DiskOp name to the volume's reported latency of
	// that operation, in milliseconds.
	Latencies map[string]float64 `json:"Latencies"`
}

// SlowDiskID returns the id under which Hadoop's SlowDiskTracker keeps the
// volume disk of node: "node:disk" (getSlowDiskIDForReport).
func SlowDiskID(node, disk string) string { return node + ":" + disk }

// MaxLatencyMs returns the highest latency of d, 0 when it has none.
func (d ReportedDisk) MaxLatencyMs() float64 { return SlowDisk{Latencies: d.Latencies}.MaxLatencyMs() }

// SplitDiskID splits a disk id, "host:port:volume" (SlowDiskID), after
// its node id; an id without a volume is all node.
func SplitDiskID(id string) (node, volume string) {
	i := strings.Index(id, ":")
	if strings.HasPrefix(id, "[") { // "[::1]:9866:/data"
		i = strings.Index(id, "]:")
		if i >= 0 {
			i++
		}
	}
	if i < 0 {
		return id, ""
	}
	j := strings.Index(id[i+1:], ":")
	if j < 0 {
		return id, ""
	}
	return id[:i+1+j], id[i+2+j:]
}
