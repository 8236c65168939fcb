package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
)

const datanodeSynopsis = "-id HOST:PORT -namenode URL[,URL...] [-data-listen ADDR] [-http-listen ADDR] [-peers H:P,...] [-conf DIR] [-D key=value]...\n" +
	"                         [-hadoop-jmx URL] [-fault-receive-delay D] [-auth-token-file F]"

// datanodeFlags are the flags of "slowpeer datanode".
type datanodeFlags struct {
	conf       confFlags
	id         string
	namenodes  string
	dataListen string
	httpListen string
	peers      string
	hadoopJMX  string
	faultDelay time.Duration
	tokenFile  string
}

func (f *datanodeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.id, "id", "", "this node's id, the `HOST:PORT` its peers and the services know it by (required)")
	fs.StringVar(&f.namenodes, "namenode", "", "comma-separated base `URLs` of the NameNode-side services (required)")
	fs.StringVar(&f.dataListen, "data-listen", "", "`ADDR` of the data port that serves probe pipelines (default: the -id; none with -hadoop-jmx)")
	fs.StringVar(&f.httpListen, "http-listen", "", "`ADDR` of the agent's HTTP port: /jmx as a Hadoop DataNode's, /metrics, /healthz (default: dfs.datanode.http.address, else none)")
	fs.StringVar(&f.peers, "peers", "", "comma-separated ids (`H:P,...`) of the agents to probe; this node's own id is skipped")
	fs.StringVar(&f.hadoopJMX, "hadoop-jmx", "", "`URL` of a Hadoop DataNode's /jmx whose SendPacketDownstreamAvgInfo replaces the probes")
	fs.DurationVar(&f.faultDelay, "fault-receive-delay", 0, "wait `D` before acknowledging each probe packet received (fault injection)")
	fs.StringVar(&f.tokenFile, "auth-token-file", "", "`F`, a file holding the bearer token sent with every heartbeat")
	f.conf.register(fs)
}

// runDatanode runs the DataNode-side agent until ctx ends (SIGINT or
// SIGTERM), then stops it cleanly.
func runDatanode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("datanode", datanodeSynopsis, stderr)
	var f datanodeFlags
	f.register(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return usageError{err}
	}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	agent, err := datanode.New(cfg)
	if err != nil {
		return usageError{err}
	}
	return agent.Run(ctx)
}

// config assembles the agent's Config from the flags and the Hadoop
// configuration.
func (f *datanodeFlags) config() (datanode.Config, error) {
	cfg := datanode.DefaultConfig()
	if f.id == "" {
		return cfg, errors.New("-id HOST:PORT is required")
	}
	if f.namenodes == "" {
		return cfg, errors.New("-namenode URL[,URL...] is required")
	}
	var err error
	cfg.ID = f.id
	if cfg.NameNodes, err = splitList("-namenode", f.namenodes); err != nil {
		return cfg, err
	}
	if f.peers != "" {
		if cfg.Peers, err = splitList("-peers", f.peers); err != nil {
			return cfg, err
		}
	}
	cfg.HadoopJMX, cfg.FaultReceiveDelay = f.hadoopJMX, f.faultDelay
	cfg.DataListen = f.dataListen
	if cfg.DataListen == "" && cfg.HadoopJMX == "" {
		cfg.DataListen = cfg.ID // HDFS: the transfer address is the DataNode's id
	}
	if f.tokenFile != "" {
		if cfg.AuthToken, err = readTokenFile(f.tokenFile); err != nil {
			return cfg, err
		}
	}
	conf, err := f.conf.load()
	if err != nil {
		return cfg, err
	}
	if err := datanodeConf(conf, &cfg); err != nil {
		return cfg, err
	}
	if f.httpListen != "" {
		cfg.HTTPListen = f.httpListen
	}
	return cfg, cfg.Validate()
}

// datanodeConf reads the agent's keys from conf into cfg, whose fields
// hold the defaults. dfs.heartbeat.interval is read in seconds when bare,
// as Hadoop reads it; the other durations in milliseconds.
func datanodeConf(conf hadoopConf, cfg *datanode.Config) error {
	var err error
	dur := func(key string, dst *time.Duration, bare time.Duration) {
		if err == nil {
			*dst, err = conf.duration(key, *dst, bare)
		}
	}
	integer := func(key string, dst *int, lo, hi int) {
		if err == nil {
			*dst, err = conf.integer(key, *dst, lo, hi)
		}
	}
	dur("dfs.heartbeat.interval", &cfg.HeartbeatInterval, time.Second)
	dur("dfs.datanode.outliers.report.interval", &cfg.ReportInterval, time.Millisecond)
	minSamples := int(cfg.MinOutlierDetectionSamples)
	integer("dfs.datanode.peer.metrics.min.outlier.detection.samples", &minSamples, 0, math.MaxInt32)
	cfg.MinOutlierDetectionSamples = int64(minSamples)
	integer("dfs.datanode.min.outlier.detection.nodes", &cfg.MinOutlierDetectionNodes, 1, math.MaxInt32)
	if err == nil {
		const key = "dfs.datanode.slowpeer.low.threshold.ms"
		var ms float64
		ms, err = conf.float(key, float64(cfg.LowThreshold)/float64(time.Millisecond))
		if err == nil && ms > float64(24*time.Hour/time.Millisecond) {
			err = fmt.Errorf("configuration %s: %v ms is more than a day", key, ms)
		}
		cfg.LowThreshold = time.Duration(ms * float64(time.Millisecond))
	}
	dur("slowpeer.rolling.window", &cfg.RollingWindow, time.Millisecond)
	integer("slowpeer.rolling.windows", &cfg.RollingWindows, 1, 1<<16)
	dur("slowpeer.probe.interval", &cfg.ProbeInterval, time.Millisecond)
	integer("slowpeer.probe.packets", &cfg.ProbePackets, 1, datanode.MaxProbePackets)
	if err == nil {
		var n int64
		n, err = conf.bytes("slowpeer.probe.packet.size", int64(cfg.ProbePacketBytes), 1, datanode.MaxProbePacketBytes)
		cfg.ProbePacketBytes = int(n)
	}
	if err == nil {
		cfg.ProbeMaxBytesPerSecond, err = conf.bytes("slowpeer.probe.max.bandwidth", cfg.ProbeMaxBytesPerSecond, 1, math.MaxInt64)
	}
	dur("slowpeer.probe.timeout", &cfg.ProbeTimeout, time.Millisecond)
	dur("slowpeer.hadoop.jmx.interval", &cfg.HadoopJMXInterval, time.Millisecond)
	integer("slowpeer.hadoop.jmx.peer.port", &cfg.HadoopJMXPeerPort, 0, 65535)
	dur("slowpeer.heartbeat.max.backoff", &cfg.MaxRetryBackoff, time.Millisecond)
	if err == nil {
		cfg.PeerStatsEnabled, err = conf.boolean("dfs.datanode.peer.stats.enabled", cfg.PeerStatsEnabled)
	}
	if v, ok := conf.value("dfs.datanode.http.address"); ok && err == nil {
		cfg.HTTPListen = v
	}
	return err
}
