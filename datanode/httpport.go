package datanode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/jmx"
)

// dataNodeModelerType is the modelerType Hadoop gives the DataNodeInfo
// bean: the class that implements DataNodeMXBean.
const dataNodeModelerType = "org.apache.hadoop.hdfs.server.datanode.DataNode"

// maxMetricPeers bounds the per-peer series /metrics writes; beyond it the
// peers with the highest ids are left out (and counted).
const maxMetricPeers = 10000

// httpShutdownTimeout bounds how long Run waits for requests in flight
// on the HTTP port when it stops.
const httpShutdownTimeout = 5 * time.Second

// Handler returns the handler of the agent's HTTP port, which Run serves
// on Config.HTTPListen; a program that embeds the agent may serve it on a
// port of its own instead.
//
//   - /jmx answers as a Hadoop DataNode's JMXJsonServlet, with the bean
//     Hadoop:service=DataNode,name=DataNodeInfo: DatanodeHostname and
//     DataPort (from the id), HttpPort (while Run serves the port), and
//     SendPacketDownstreamAvgInfo, the string
//     {"[host:port]RollingAvgTime":ms,...} a Hadoop DataNode writes
//     (jmx.PeerAveragesJSON), or null while peer statistics are off. Its
//     latencies are those of the report source: every peer with samples in
//     the rolling windows, as Hadoop's MutableRollingAverages.snapshot
//     writes them (no minimum of samples), or the last good document of
//     -hadoop-jmx. Another agent's -hadoop-jmx reads it as it reads a
//     Hadoop DataNode.
//   - /metrics is Prometheus text: slowpeer_datanode_peer_latency_seconds
//     per peer (at most one series per peer),
//     slowpeer_datanode_disk_latency_seconds per volume and operation
//     measured (the slowest source's mean), and the agent's counters.
//   - /healthz answers 200 "ok" while the agent runs.
func (a *Agent) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/jmx", func(w http.ResponseWriter, r *http.Request) {
		jmx.Write(w, r, a.beans(time.Now()))
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		a.metricsSet.WritePrometheus(w)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	return mux
}

// latencies returns the per-peer latencies, in milliseconds, the HTTP port
// publishes at now, or nil while peer statistics are off.
func (a *Agent) latencies(now time.Time) map[string]float64 {
	if !a.cfg.PeerStatsEnabled {
		return nil
	}
	if a.jmx != nil {
		if lat := a.jmx.Latencies(now); lat != nil {
			return lat
		}
		return map[string]float64{}
	}
	avgs := a.metrics.averages.Snapshot(now, 0)
	out := make(map[string]float64, len(avgs))
	for _, avg := range avgs {
		out[avg.Key] = avg.Mean
	}
	return out
}

// beans returns what /jmx serves at now.
func (a *Agent) beans(now time.Time) []jmx.Bean {
	info := jmx.Bean{Name: jmx.DataNodeInfoBean, ModelerType: dataNodeModelerType}
	if host, port, err := net.SplitHostPort(a.cfg.ID); err == nil {
		// Hadoop writes the ports of DataNodeInfo as strings.
		info.Attrs = append(info.Attrs, jmx.Attr{Name: "DatanodeHostname", Value: host},
			jmx.Attr{Name: "DataPort", Value: port})
	}
	if p := a.httpPort.Load(); p != nil {
		info.Attrs = append(info.Attrs, jmx.Attr{Name: "HttpPort", Value: *p})
	}
	var avg any // null: peer statistics off, as on a Hadoop DataNode
	if lat := a.latencies(now); lat != nil {
		avg = jmx.PeerAveragesJSON(lat)
	}
	info.Attrs = append(info.Attrs, jmx.Attr{Name: jmx.SendPacketDownstreamAvgInfo, Value: avg})
	return []jmx.Bean{info}
}

// newMetricsSet returns the set /metrics writes: the per-peer latencies
// and the counters, read at each scrape.
func (a *Agent) newMetricsSet() *metrics.Set {
	s := metrics.NewSet()
	s.RegisterMetricsWriter(func(w io.Writer) {
		lat := a.latencies(time.Now())
		peers := slices.Sorted(maps.Keys(lat))
		omitted := max(len(peers)-maxMetricPeers, 0)
		for _, p := range peers[:len(peers)-omitted] {
			metrics.WriteGaugeFloat64(w, `slowpeer_datanode_peer_latency_seconds{peer="`+labelValue(p)+`"}`, lat[p]/1000)
		}
		enabled := uint64(0)
		if a.cfg.PeerStatsEnabled {
			enabled = 1
		}
		metrics.WriteGaugeUint64(w, "slowpeer_datanode_peer_stats_enabled", enabled)
		metrics.WriteGaugeUint64(w, "slowpeer_datanode_peers", uint64(len(peers)))
		metrics.WriteGaugeUint64(w, "slowpeer_datanode_peers_omitted", uint64(omitted))
		st := a.Stats()
		for _, c := range []struct {
			name string
			v    int64
		}{
			{"slowpeer_datanode_heartbeats_sent_total", st.HeartbeatsSent},
			{"slowpeer_datanode_heartbeats_failed_total", st.HeartbeatsFailed},
			{"slowpeer_datanode_reports_sent_total", st.ReportsSent},
			{"slowpeer_datanode_probe_blocks_total", st.ProbeBlocks},
			{"slowpeer_datanode_probe_blocks_failed_total", st.ProbeBlocksFailed},
			{"slowpeer_datanode_relayed_blocks_total", st.RelayedBlocks},
			{"slowpeer_datanode_latencies_recorded_total", st.LatenciesRecorded},
			{"slowpeer_datanode_corrupt_packets_total", st.CorruptPackets},
			{"slowpeer_datanode_dropped_connections_total", st.DroppedConnections},
			{"slowpeer_datanode_peers_dropped_total", st.PeersDropped},
			{"slowpeer_datanode_jmx_scrapes_total", st.JMXScrapes},
			{"slowpeer_datanode_jmx_errors_total", st.JMXErrors},
			{"slowpeer_datanode_disk_probes_total", st.DiskProbes},
			{"slowpeer_datanode_disk_probe_errors_total", st.DiskProbeErrors},
			{"slowpeer_datanode_disk_probes_skipped_total", st.DiskProbesSkipped},
			{"slowpeer_datanode_disk_stats_reads_total", st.DiskStatsReads},
		} {
			metrics.WriteCounterUint64(w, c.name, uint64(c.v))
		}
		if a.disks != nil {
			for _, v := range a.disks.stats(time.Now()) {
				for _, op := range disk.Ops() {
					if o := v.Ops[op]; o.Samples > 0 {
						metrics.WriteGaugeFloat64(w, `slowpeer_datanode_disk_latency_seconds{volume="`+labelValue(v.Path)+`",op="`+op.String()+`"}`, o.MeanMs/1000)
					}
				}
			}
		}
	})
	return s
}

// labelValue escapes s for a Prometheus label value.
func labelValue(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// httpAddress returns the HTTP port's address as heartbeats announce it,
// or "" while Run has not opened one.
func (a *Agent) httpAddress() string {
	if p := a.httpAddr.Load(); p != nil {
		return *p
	}
	return ""
}

// announcedAddress returns the address others reach a listener on: listen
// (a listener's "host:port") with an unspecified host (0.0.0.0, ::) or an
// empty one replaced by the host of the node id, so that the service lists
// a reachable infoAddr for the agent.
func announcedAddress(listen, id string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		idHost, _, err := net.SplitHostPort(id)
		if err != nil {
			return ""
		}
		host = idHost
	}
	return net.JoinHostPort(host, port)
}

// openHTTPPort opens the listener of the HTTP port, nil for none.
func (a *Agent) openHTTPPort(ctx context.Context) (net.Listener, error) {
	if a.cfg.HTTPListener != nil {
		return a.cfg.HTTPListener, nil
	}
	if a.cfg.HTTPListen == "" {
		return nil, nil
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", a.cfg.HTTPListen)
	if err != nil {
		return nil, fmt.Errorf("open the HTTP port: %w", err)
	}
	return ln, nil
}

// serveHTTP serves Handler on ln until ctx is done, then lets requests in
// flight finish for at most httpShutdownTimeout.
func (a *Agent) serveHTTP(ctx context.Context, ln net.Listener) {
	if _, port, err := net.SplitHostPort(ln.Addr().String()); err == nil {
		a.httpPort.Store(&port)
	}
	srv := &http.Server{Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelDebug)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), httpShutdownTimeout)
		defer cancel()
		_ = srv.Shutdown(sctx) // requests still running after the timeout are cut
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		a.log.Error("the HTTP port stopped", slog.Any("err", err))
	}
	<-done
}
