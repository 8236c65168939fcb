package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/hadoopconf"
)

const datanodeSynopsis = "-id HOST:PORT -namenode SERVICES [-data-listen ADDR] [-http-listen ADDR] [-peers H:P,...] [-conf DIR] [-D key=value]...\n" +
	"                         [-hadoop-jmx URL] [-volumes DIRS] [-fault-receive-delay D] [-auth-token-file F] [-tls-ca F [-tls-cert F -tls-key F]]\n" +
	"                         [-log-level LEVEL] [-log-format text|json]"

// datanodeFlags are the flags of "slowpeer datanode".
type datanodeFlags struct {
	conf       confFlags
	id         string
	namenodes  string
	dataListen string
	httpListen string
	peers      string
	hadoopJMX  string
	volumes    string
	faultDelay time.Duration
	client     clientFlags
	log        logFlags
	// etcd is the TLS of a registry etcd://, from the keys (etcdTLS);
	// etcdReload what SIGHUP re-reads of it.
	etcd       *tls.Config
	etcdReload []reloadable
}

func (f *datanodeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.id, "id", "", "this node's id, the `HOST:PORT` its peers and the services know it by (required)")
	fs.StringVar(&f.namenodes, "namenode", "", "`SERVICES`: comma-separated base URLs of the NameNode-side services, or a registry zk://H:P[,H:P]/ROOT or etcd://H:P[,H:P]/ROOT whose replicas are followed as they come and go (required)")
	fs.StringVar(&f.dataListen, "data-listen", "", "`ADDR` of the data port that serves probe pipelines (default: the -id; none with -hadoop-jmx)")
	fs.StringVar(&f.httpListen, "http-listen", "", "`ADDR` of the agent's HTTP port: /jmx as a Hadoop DataNode's, /metrics, /healthz (default: dfs.datanode.http.address, else none)")
	fs.StringVar(&f.peers, "peers", "", "comma-separated ids (`H:P,...`) of the agents to probe; this node's own id is skipped")
	fs.StringVar(&f.hadoopJMX, "hadoop-jmx", "", "`URL` of a Hadoop DataNode's /jmx whose SendPacketDownstreamAvgInfo replaces the probes")
	fs.StringVar(&f.volumes, "volumes", "", "the DataNode's volumes to measure, `DIRS` as dfs.datanode.data.dir writes them ([SSD]/data/1,/data/2; default: dfs.datanode.data.dir, else none)")
	fs.DurationVar(&f.faultDelay, "fault-receive-delay", 0, "wait `D` before acknowledging each probe packet received (fault injection)")
	f.client.register(fs, "every heartbeat")
	f.log.register(fs)
	f.conf.register(fs, datanodeDefaults()...)
}

// datanodeDefaults are the keys of "slowpeer datanode" with their
// defaults: the agent's and the TLS of an etcd registry.
func datanodeDefaults() [][]keyDefault {
	return [][]keyDefault{datanodeKeys.defaults(datanode.DefaultConfig()), etcdTLSKeys.defaults(discovery.EtcdTLS{})}
}

// runDatanode runs the DataNode-side agent until ctx ends (SIGINT or
// SIGTERM), then stops it cleanly. With a registry URL for -namenode, the
// agent sends heartbeats to every replica registered there, following
// them as they come and go.
func runDatanode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("datanode", datanodeSynopsis, stderr)
	var f datanodeFlags
	f.register(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	log, err := f.log.logger(stderr)
	if err != nil {
		return usageError{err}
	}
	cfg, err := f.config()
	if err != nil {
		return usageError{err}
	}
	for _, w := range keyWarnings(&f.conf, "datanode", datanodeKeyNames(), namenodeKeyNames(), "namenode") {
		log.Warn(w)
	}
	for _, w := range peerWarnings(cfg) {
		log.Warn(w)
	}
	tlsCfg, reload, err := f.client.tls()
	if err != nil {
		return usageError{err}
	}
	cfg.TLS = tlsCfg
	cfg.Logger = log
	props := f.conf.properties(datanodeDefaults()...)
	cfg.Conf = hadoopconf.Handler(func() []hadoopconf.Property { return props })
	agent, err := datanode.New(cfg)
	if err != nil {
		return usageError{err}
	}
	// SIGHUP re-reads the client certificate, if any; it never ends the
	// agent (systemctl reload sends it).
	g := newGroup(log)
	g.Go("agent", agent.Run)
	g.Go("TLS reload on SIGHUP", newHangup(log, append(reload, f.etcdReload...)).run)
	if discovery.IsRegistryURL(f.namenodes) {
		u, _ := discovery.ParseRegistryURL(f.namenodes) // checked by config
		u.TLS = f.etcd
		reg, err := discovery.OpenRegistry(u, 0, log)
		if err != nil {
			return err
		}
		g.Cleanup("registry client", reg.Close)
		g.Go("registry", func(ctx context.Context) error {
			return reg.Follow(ctx, func(ms []discovery.Member) {
				urls := discovery.MemberURLs(ms)
				log.Info("registered replicas", slog.Any("namenodes", urls))
				if err := agent.SetNameNodes(urls); err != nil {
					log.Warn("registered replicas", slog.Any("err", err))
				}
			})
		})
	}
	return g.Run(ctx)
}

// config assembles the agent's Config from the flags and the Hadoop
// configuration.
func (f *datanodeFlags) config() (datanode.Config, error) {
	cfg := datanode.DefaultConfig()
	if f.id == "" {
		return cfg, errors.New("-id HOST:PORT is required")
	}
	if f.namenodes == "" {
		return cfg, errors.New("-namenode SERVICES is required")
	}
	var err error
	cfg.ID = f.id
	if discovery.IsRegistryURL(f.namenodes) {
		if _, err := discovery.ParseRegistryURL(f.namenodes); err != nil {
			return cfg, fmt.Errorf("-namenode: %w", err)
		}
		cfg.FollowNameNodes = true
	} else if cfg.NameNodes, err = splitList("-namenode", f.namenodes); err != nil {
		return cfg, err
	}
	if f.peers != "" {
		if cfg.Peers, err = splitList("-peers", f.peers); err != nil {
			return cfg, err
		}
	}
	cfg.HadoopJMX, cfg.FaultReceiveDelay = f.hadoopJMX, f.faultDelay
	cfg.SoftwareVersion = softwareVersion()
	cfg.DataListen = f.dataListen
	if cfg.DataListen == "" && cfg.HadoopJMX == "" {
		cfg.DataListen = cfg.ID // HDFS: the transfer address is the DataNode's id
	}
	if f.client.tokenFile != "" {
		if cfg.AuthToken, err = readTokenFile(f.client.tokenFile); err != nil {
			return cfg, err
		}
	}
	conf, err := f.conf.load()
	if err != nil {
		return cfg, err
	}
	if err := datanodeConf(conf, &cfg); err != nil {
		return cfg, f.conf.named(err)
	}
	if f.etcd, f.etcdReload, err = etcdTLS(conf); err != nil {
		return cfg, err
	}
	if f.httpListen != "" {
		cfg.HTTPListen = f.httpListen
	}
	if f.volumes != "" {
		if cfg.Volumes, err = datanode.ParseDataDirs(f.volumes); err != nil {
			return cfg, fmt.Errorf("-volumes: %w", err)
		}
	}
	return cfg, cfg.Validate()
}
