package datanode

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/reports"
)

// maxMetricPeers bounds the per-peer series /metrics writes; beyond it the
// peers with the highest ids are left out (and counted).
const maxMetricPeers = 10000

// counterFamilies are the agent's counters on /metrics: name, help, and
// the Stats field each reads.
var counterFamilies = []struct {
	name, help string
	value      func(Stats) int64
}{
	{"slowpeer_datanode_heartbeats_sent_total", "Heartbeats a service acknowledged.", func(s Stats) int64 { return s.HeartbeatsSent }},
	{"slowpeer_datanode_heartbeats_failed_total", "Heartbeats that failed: no answer, an error status or a malformed reply.", func(s Stats) int64 { return s.HeartbeatsFailed }},
	{"slowpeer_datanode_reports_sent_total", "Slow-peer reports a service acknowledged.", func(s Stats) int64 { return s.ReportsSent }},
	{"slowpeer_datanode_probe_blocks_total", "Probe blocks this agent wrote to the end.", func(s Stats) int64 { return s.ProbeBlocks }},
	{"slowpeer_datanode_probe_blocks_failed_total", "Probe blocks this agent began to write and could not finish.", func(s Stats) int64 { return s.ProbeBlocksFailed }},
	{"slowpeer_datanode_relayed_blocks_total", "Probe blocks of other agents received to the end on the data port.", func(s Stats) int64 { return s.RelayedBlocks }},
	{"slowpeer_datanode_latencies_recorded_total", "Packet latencies recorded as the next-to-last node of a pipeline.", func(s Stats) int64 { return s.LatenciesRecorded }},
	{"slowpeer_datanode_corrupt_packets_total", "Probe packets whose checksum did not match their payload (never timed).", func(s Stats) int64 { return s.CorruptPackets }},
	{"slowpeer_datanode_dropped_connections_total", "Probe connections that failed midway: refused, reset, timed out or ended early.", func(s Stats) int64 { return s.DroppedConnections }},
	{"slowpeer_datanode_peers_dropped_total", "Times the averages of a peer were dropped after slowpeer.probe.max.failures failed probes in a row.", func(s Stats) int64 { return s.PeersDropped }},
	{"slowpeer_datanode_probe_requested_blocks_total", "Probe blocks written at a service's request (the fast path's confirmation rounds).", func(s Stats) int64 { return s.ProbeRequestedBlocks }},
	{"slowpeer_datanode_probe_requests_ignored_total", "Probe requests not obeyed: malformed, for a peer this agent does not probe, or over slowpeer.probe.confirm.budget.", func(s Stats) int64 { return s.ProbeRequestsIgnored }},
	{"slowpeer_datanode_recent_blocks_dropped_total", "Probe blocks left out of heartbeats' recentLatencies: past 256 entries, or held too long for a service that did not answer.", func(s Stats) int64 { return s.RecentBlocksDropped }},
	{"slowpeer_datanode_jmx_scrapes_total", "Hadoop /jmx documents read and understood (-hadoop-jmx).", func(s Stats) int64 { return s.JMXScrapes }},
	{"slowpeer_datanode_jmx_errors_total", "Failed Hadoop /jmx reads, malformed documents included (-hadoop-jmx).", func(s Stats) int64 { return s.JMXErrors }},
	{"slowpeer_datanode_disk_probes_total", "Probe operations on the volumes, recorded.", func(s Stats) int64 { return s.DiskProbes }},
	{"slowpeer_datanode_disk_probe_errors_total", "Probe operations on the volumes that failed.", func(s Stats) int64 { return s.DiskProbeErrors }},
	{"slowpeer_datanode_disk_probes_skipped_total", "Probe operations on the volumes not recorded: their device was busy with other I/O.", func(s Stats) int64 { return s.DiskProbesSkipped }},
	{"slowpeer_datanode_disk_stats_reads_total", "Reads of /proc/diskstats for the volumes' devices.", func(s Stats) int64 { return s.DiskStatsReads }},
}

// newMetricsSet returns the set /metrics writes: the per-peer latencies
// and the counters, read at each scrape, every family with its # HELP and
// # TYPE lines before its samples (promtool check metrics passes).
func (a *Agent) newMetricsSet() *metrics.Set {
	s := metrics.NewSet()
	s.RegisterMetricsWriter(func(w io.Writer) {
		lat := a.latencies(time.Now())
		peers := slices.Sorted(maps.Keys(lat))
		omitted := max(len(peers)-maxMetricPeers, 0)
		family(w, "slowpeer_datanode_peer_latency_seconds", "gauge",
			"Rolling average time to mirror a packet to the peer and have it acknowledged, per peer.")
		for _, p := range peers[:len(peers)-omitted] {
			fmt.Fprintf(w, "slowpeer_datanode_peer_latency_seconds{peer=%s} %s\n", reports.QuoteLabel(p),
				strconv.FormatFloat(lat[p]/1000, 'g', -1, 64))
		}
		enabled := 0
		if a.cfg.PeerStatsEnabled {
			enabled = 1
		}
		gauge(w, "slowpeer_datanode_peer_stats_enabled", "1 when peer latencies are measured and reported (dfs.datanode.peer.stats.enabled).", int64(enabled))
		gauge(w, "slowpeer_datanode_peers", "Peers with a latency in the rolling windows.", int64(len(peers)))
		gauge(w, "slowpeer_datanode_peers_omitted", "Peers left out of slowpeer_datanode_peer_latency_seconds past its series cap.", int64(omitted))
		st := a.Stats()
		for _, c := range counterFamilies {
			family(w, c.name, "counter", c.help)
			fmt.Fprintf(w, "%s %d\n", c.name, c.value(st))
		}
		if a.disks != nil {
			family(w, "slowpeer_datanode_disk_latency_seconds", "gauge",
				"Mean time of an operation on the volume, per volume and operation measured (the slowest source's).")
			for _, v := range a.disks.stats(time.Now()) {
				for _, op := range disk.Ops() {
					if o := v.Ops[op]; o.Samples > 0 {
						fmt.Fprintf(w, "slowpeer_datanode_disk_latency_seconds{volume=%s,op=\"%s\"} %s\n", reports.QuoteLabel(v.Path), op,
							strconv.FormatFloat(o.MeanMs/1000, 'g', -1, 64))
					}
				}
			}
		}
	})
	return s
}

// family writes the # HELP and # TYPE lines of a family.
func family(w io.Writer, name, typ, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

// gauge writes a family of one unlabelled gauge sample.
func gauge(w io.Writer, name, help string, v int64) {
	family(w, name, "gauge", help)
	fmt.Fprintf(w, "%s %d\n", name, v)
}
