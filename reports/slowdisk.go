package reports

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
