package datanode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/slowpeer/slowpeer/jmx"
)

// httpShutdownTimeout bounds how long Run waits for requests in flight
// on the HTTP port when it stops.
const httpShutdownTimeout = 5 * time.Second

// Handler returns the handler of the agent's HTTP port, which Run serves
// on Config.HTTPListen; a program that embeds the agent may serve it on a
// port of its own instead.
//
//   - /jmx answers as a Hadoop DataNode's JMXJsonServlet, with the beans
//     Hadoop:service=DataNode,name=DataNodeInfo and JvmMetrics (see
//     beans). DataNodeInfo's SendPacketDownstreamAvgInfo is the string
//     {"[host:port]RollingAvgTime":ms,...} a Hadoop DataNode writes
//     (jmx.PeerAveragesJSON), or null while peer statistics are off. Its
//     latencies are those of the report source: every peer with samples in
//     the rolling windows, as Hadoop's MutableRollingAverages.snapshot
//     writes them (no minimum of samples), or the last good document of
//     -hadoop-jmx. Another agent's -hadoop-jmx reads it as it reads a
//     Hadoop DataNode.
//   - /metrics is Prometheus text: slowpeer_datanode_peer_latency_seconds
//     per peer (at most one series per peer), and the agent's counters,
//     each family with its # HELP and # TYPE lines.
//   - /healthz answers 200 "ok" while the agent runs.
//   - /conf, with Config.Conf, the effective configuration.
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
	if a.cfg.Conf != nil {
		mux.Handle("/conf", a.cfg.Conf)
	}
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
