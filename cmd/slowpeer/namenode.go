package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/hadoopconf"
	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/namenode"
)

const namenodeSynopsis = "-listen ADDR [-conf DIR] [-D key=value]... [-store DSN] [-hiveservers H:P,...] [-auth-token-file F]" +
	" [-auth-reads] [-tls-cert F -tls-key F [-tls-client-ca F]] [-insecure]" +
	" [-registry zk://H:P[,H:P]/ROOT | etcd://H:P[,H:P]/ROOT -advertise HOST:PORT]" +
	" [-hs2-zookeeper H:P[,H:P] [-hs2-namespace NAME] [-hs2-publish-namespace NAME [-hs2-publish-count K]]]" +
	" [-kyuubi-etcd etcd://H:P[,H:P]/NAMESPACE] [-replicas URL,...] [-state-file F] [-log-level LEVEL] [-log-format text|json]"

// namenodeFlags are the flags of "slowpeer namenode".
type namenodeFlags struct {
	conf        confFlags
	listen      string
	tokenFile   string
	authReads   bool
	insecure    bool
	tls         serverTLSFlags
	store       string
	hiveservers string
	hs2         hs2Flags
	state       stateFlags
	kyuubi      kyuubiFlags
	registry    registryFlags
	log         logFlags
}

func (f *namenodeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.listen, "listen", "", "`ADDR` to serve HTTP on, host:port (required; port 0 picks a free one)")
	fs.StringVar(&f.tokenFile, "auth-token-file", "", "`F`, a file holding the bearer token every POST must carry (default: the service is open, "+
		"and takes hook events only of the HiveServers of -hiveservers and the registries)")
	fs.BoolVar(&f.authReads, "auth-reads", false, "ask the -auth-token-file token of every read (GET) too; without it all GET endpoints are open")
	f.tls.register(fs)
	fs.BoolVar(&f.insecure, "insecure", false, "serve open (no -auth-token-file, no -tls-client-ca) on an address other than loopback; without it the service refuses to start so")
	fs.StringVar(&f.store, "store", hiveserverDefaultStore, "`DSN` of the Hive hook event store: sqlite:PATH, or mysql:DSN (go-sql-driver) for MySQL or MariaDB shared by replicas")
	fs.StringVar(&f.hiveservers, "hiveservers", "", "HiveServers `H:P,...` the picker always knows, beside those that send hook events")
	f.hs2.register(fs)
	f.state.register(fs)
	f.kyuubi.register(fs)
	f.registry.register(fs)
	f.log.register(fs)
	f.conf.register(fs, namenodeDefaults()...)
}

// namenodeDefaults are the keys of "slowpeer namenode" with their
// defaults: the service's, its picker's, its registry's and the TLS of
// an etcd registry.
func namenodeDefaults() [][]keyDefault {
	return [][]keyDefault{namenodeKeys.defaults(namenode.DefaultConfig()), hiveserverKeys.defaults(hiveserver.DefaultConfig()),
		registryKeys.defaults(discovery.DefaultReplicaConfig()), etcdTLSKeys.defaults(discovery.EtcdTLS{})}
}

// runNamenode runs the NameNode-side service until ctx ends (SIGINT or
// SIGTERM), then lets in-flight requests finish (at most
// namenode.DefaultShutdownTimeout) and returns. Its components run in one
// group: the HTTP service, with -registry the replica's registration
// and election, with the ZooKeeper flags the watcher of HiveServer2's
// registrations, and the leader's work (the publisher, the store's
// pruning and migration), done while the replica leads; the picker and its store
// are closed after all of them have stopped. A replica whose registration
// is deleted by hand stops this way: it serves no new request, lets those
// in flight finish, and exits 0.
func runNamenode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("namenode", namenodeSynopsis, stderr)
	var f namenodeFlags
	f.register(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	log, err := f.log.logger(stderr)
	if err != nil {
		return usageError{err}
	}
	cfg, conf, err := f.config()
	if err != nil {
		return usageError{err}
	}
	for _, w := range keyWarnings(&f.conf, "namenode", namenodeKeyNames(), datanodeKeyNames(), "datanode") {
		log.Warn(w)
	}
	tlsFiles, err := f.tls.load()
	if err != nil {
		return usageError{err}
	}
	etcdTLSConfig, etcdReload, err := etcdTLS(conf)
	if err != nil {
		return usageError{err}
	}
	f.registry.tls, f.kyuubi.tls = etcdTLSConfig, etcdTLSConfig
	cfg.TLS = tlsFiles.server
	cfg.Logger = log
	cfg.HostsLookup = net.DefaultResolver.LookupHost
	// Listen first: a taken port fails before the store is opened, and
	// -listen :0 gives the address to register.
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	if err := f.refuseOpen(ln.Addr(), cfg.AuthToken); err != nil {
		ln.Close()
		return inputError{err}
	}
	scheme := "http"
	if cfg.TLS != nil {
		scheme = "https"
	}
	replica, self, err := f.replica(ln, scheme, conf, log)
	if err != nil {
		ln.Close()
		return usageError{err}
	}
	if replica != nil {
		cfg.State, cfg.Advertise = replica.State, self
	}
	srv, err := namenode.New(cfg)
	if err != nil {
		ln.Close()
		return usageError{err}
	}
	setMemoryLimit(namenode.MemoryBudget(cfg), log)
	if _, err := srv.RefreshNodes(ctx); err != nil {
		ln.Close()
		return usageError{err}
	}
	mountCluster(srv, replica, self)
	props := f.conf.properties(namenodeDefaults()...)
	srv.Handle(http.MethodGet, confPath, hadoopconf.Handler(func() []hadoopconf.Property { return props }))
	g := newGroup(log)
	// While it answers /readyz 503 and nothing else: what the other
	// replicas know (-replicas, and those registered with -registry that
	// authenticate), else the file.
	peerClient := stateClient(tlsFiles.peer)
	startState(g, srv, &f.state, f.store, peerClient, func(ctx context.Context) []string {
		peers, _ := f.state.peers() // checked
		if u, _ := f.registry.check(); replica != nil {
			actx, cancel := context.WithTimeout(ctx, namenode.DefaultRestoreTimeout)
			peers = append(peers, trustedPeers(actx, peerClient, registeredPeers(ctx, u, self, log), cfg.AuthToken, log)...)
			cancel()
		}
		return peers
	})
	picker, work, err := namenodeComponents(ctx, g, &f, conf, srv, replica, log)
	if err != nil {
		ln.Close()
		return g.Stop(err)
	}
	// SIGHUP re-reads dfs.hosts.exclude and the TLS files, if any; it
	// never ends the service (systemctl reload sends it).
	reload := append(append(tlsFiles.reload, etcdReload...), reloadable{name: namenode.HostsExcludeKey, reload: func() error {
		_, err := srv.RefreshNodes(context.WithoutCancel(ctx))
		return err
	}})
	g.Go("reload on SIGHUP", newHangup(log, reload).run)
	g.Go("leader work", work.Run)
	if replica != nil {
		g.Go("registry", replica.Run)
	}
	// The picker commits until the HTTP service has let in-flight hook
	// events finish: a 200 means the event is stored.
	g.Go("http service and hiveserver picker", func(ctx context.Context) error {
		return runBehind(ctx, func(ctx context.Context) error { return srv.Serve(ctx, ln) }, picker.Run)
	})
	return g.Run(ctx)
}

// replica returns the registration of -registry (nil without it) and
// the address this service goes by; scheme is how it serves (http or
// https, as its registered name says).
func (f *namenodeFlags) replica(ln net.Listener, scheme string, conf hadoopConf, log *slog.Logger) (*discovery.Replica, string, error) {
	u, _ := f.registry.check() // checked by config
	if u.Kind == "" {
		return nil, ln.Addr().String(), nil
	}
	self, err := f.registry.advertised(ln)
	if err != nil {
		return nil, "", err
	}
	cfg, err := replicaConfig(u, self, scheme, conf, log)
	if err != nil {
		return nil, "", err
	}
	r, err := discovery.NewReplica(cfg)
	return r, self, err
}

// namenodeComponents adds to g what serves beside srv: the HiveServer
// picker (and its store) and the dashboard mounted on srv, and the
// watchers of the ZooKeeper and etcd flags. It returns the picker and the
// leader's work (the publisher, the store's pruning and migration), which
// the caller runs.
func namenodeComponents(ctx context.Context, g *group, f *namenodeFlags, conf hadoopConf, srv *namenode.Server, replica *discovery.Replica, log *slog.Logger) (*hiveserver.Picker, *discovery.LeaderWork, error) {
	// The watchers tell the leader's publisher that the pick may have
	// changed.
	changed := make(chan struct{}, 1)
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	w, err := f.hs2.watcher(log, notify)
	if err != nil {
		return nil, nil, err
	}
	ew, err := f.kyuubi.watcher(log, notify)
	if err != nil {
		return nil, nil, err
	}
	var sources []hiveserver.Source
	if w != nil {
		sources = append(sources, w)
		g.Go("hiveserver2 watcher", w.Run)
	}
	if ew != nil {
		sources = append(sources, ew)
		g.Go("kyuubi etcd watcher", ew.Run)
	}
	// What a server registered, for the publisher to copy: ZooKeeper's
	// registration first, else etcd's.
	registration := func(server string) (discovery.Registration, bool) {
		if w != nil {
			if r, ok := w.Registration(server); ok {
				return r, true
			}
		}
		if ew != nil {
			return ew.Registration(server)
		}
		return discovery.Registration{}, false
	}
	// Open, only known HiveServers may post: else anyone could make a
	// host of their choosing known, and picked.
	knownOnly := srv.Config().AuthToken == ""
	// Replicas that share a store leave its schema to their leader.
	leaderMigrates := replica != nil && sharedStore(f.store)
	picker, store, err := openHiveserver(ctx, f.store, f.hiveservers, sources, knownOnly, leaderMigrates, conf, log)
	if err != nil {
		return nil, nil, err
	}
	g.Cleanup("hive event store", store.Close)
	mountPicker(srv, picker, time.Now)
	src := &dashboardSource{srv: srv, picker: picker}
	if replica != nil {
		src.cluster = func(time.Time) *dashboard.Cluster {
			c := replica.Cluster()
			return &dashboard.Cluster{Self: c.Self, Leader: c.Leader, Replicas: c.Replicas, Registry: c.Registry}
		}
	}
	dash := mountDashboard(srv, src, time.Now)
	g.Go("dashboard", dash.Run)
	pcfg, _ := hiveserverConfig(f.store, f.hiveservers, conf) // read by openHiveserver
	eligible := func() []string {
		now := time.Now()
		return picker.Ranked(now, srv.AvoidedHosts(now))
	}
	wcfg := discovery.LeaderWorkConfig{Store: store, Retention: pcfg.Retention, Changed: changed, Logger: log,
		Publish: f.hs2.publisher(log, eligible, registration)}
	if replica != nil {
		wcfg.Leading = replica.Leading
	}
	if leaderMigrates {
		wcfg.Migrate, wcfg.Reloaded = true, picker.Refresh
	}
	work, err := discovery.NewLeaderWork(wcfg)
	if err != nil {
		return nil, nil, err
	}
	return picker, work, nil
}

// config assembles the service's Config from the flags and the Hadoop
// configuration.
func (f *namenodeFlags) config() (namenode.Config, hadoopConf, error) {
	cfg := namenode.DefaultConfig()
	if f.listen == "" {
		return cfg, nil, errors.New("-listen ADDR is required")
	}
	if _, _, err := net.SplitHostPort(f.listen); err != nil {
		return cfg, nil, fmt.Errorf("-listen %q is not host:port", f.listen)
	}
	cfg.Listen = f.listen
	cfg.SoftwareVersion = softwareVersion()
	if err := f.hs2.check(); err != nil {
		return cfg, nil, err
	}
	if err := f.state.check(); err != nil {
		return cfg, nil, err
	}
	if err := f.kyuubi.check(); err != nil {
		return cfg, nil, err
	}
	if _, err := f.registry.check(); err != nil {
		return cfg, nil, err
	}
	conf, err := f.conf.load()
	if err != nil {
		return cfg, nil, err
	}
	if err := namenodeConf(conf, &cfg); err != nil {
		return cfg, nil, f.conf.named(err)
	}
	if err := readTopology(&cfg); err != nil {
		return cfg, nil, err
	}
	if f.tokenFile != "" {
		if cfg.AuthToken, err = readTokenFile(f.tokenFile); err != nil {
			return cfg, nil, err
		}
	}
	if f.authReads && f.tokenFile == "" {
		return cfg, nil, errors.New("-auth-reads needs -auth-token-file")
	}
	cfg.AuthReads = f.authReads
	if err := cfg.Validate(); err != nil {
		return cfg, nil, fmt.Errorf("configuration: %w", err)
	}
	return cfg, conf, nil
}

// setMemoryLimit makes the service's memory budget its soft memory limit
// (runtime/debug.SetMemoryLimit), unless GOMEMLIMIT sets one: the garbage
// collector then collects before the heap grows past it, rather than at
// twice what is live, so that every limit full stays within the budget.
func setMemoryLimit(b namenode.Budget, log *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(b.Total())
	log.Debug("memory budget", slog.String("budget", b.String()))
}

// refuseOpen returns the reason not to serve on addr, the address the
// service listens on, when it would serve open (no token, no
// -tls-client-ca) on an address that is not loopback and -insecure was
// not given: anyone who reaches it could post thousands of made-up
// DataNodes. Loopback (the demo, a try on one machine) stays open.
func (f *namenodeFlags) refuseOpen(addr net.Addr, token string) error {
	if token != "" || f.tls.clientCA != "" || f.insecure {
		return nil
	}
	if a, ok := addr.(*net.TCPAddr); ok && a.IP.IsLoopback() {
		return nil
	}
	return fmt.Errorf("refusing to serve open on %s: give -auth-token-file (or -tls-client-ca), or -insecure to serve open anyway", f.listen)
}
