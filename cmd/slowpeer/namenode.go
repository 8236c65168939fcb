package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/namenode"
)

const namenodeSynopsis = "-listen ADDR [-conf DIR] [-D key=value]... [-store DSN] [-hiveservers H:P,...] [-auth-token-file F]" +
	" [-hs2-zookeeper H:P[,H:P] [-hs2-namespace NAME] [-hs2-publish-namespace NAME [-hs2-publish-count K]]]"

// namenodeFlags are the flags of "slowpeer namenode".
type namenodeFlags struct {
	conf        confFlags
	listen      string
	tokenFile   string
	store       string
	hiveservers string
	hs2         hs2Flags
}

func (f *namenodeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.listen, "listen", "", "`ADDR` to serve HTTP on, host:port (required; port 0 picks a free one)")
	fs.StringVar(&f.tokenFile, "auth-token-file", "", "`F`, a file holding the bearer token every POST must carry (default: the service is open)")
	fs.StringVar(&f.store, "store", hiveserverDefaultStore, "`DSN` of the Hive hook event store: sqlite:PATH, or mysql:DSN (go-sql-driver) for MySQL or MariaDB shared by replicas")
	fs.StringVar(&f.hiveservers, "hiveservers", "", "HiveServers `H:P,...` the picker always knows, beside those that send hook events")
	f.hs2.register(fs)
	f.conf.register(fs, namenodeKeys.defaults(namenode.DefaultConfig()), hiveserverKeys.defaults(hiveserver.DefaultConfig()))
}

// runNamenode runs the NameNode-side service until ctx ends (SIGINT or
// SIGTERM), then lets in-flight requests finish (at most
// namenode.DefaultShutdownTimeout) and returns. Its components run in one
// group: the HTTP service, and with the ZooKeeper flags the watcher of
// HiveServer2's registrations and the publisher; the picker and its store
// are closed after all of them have stopped.
func runNamenode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("namenode", namenodeSynopsis, stderr)
	var f namenodeFlags
	f.register(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	cfg, conf, err := f.config()
	if err != nil {
		return usageError{err}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg.Logger = log
	srv, err := namenode.New(cfg)
	if err != nil {
		return usageError{err}
	}
	// Listen first: a taken port fails before the store is opened.
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	g := newGroup(log)
	picker, err := namenodeComponents(ctx, g, &f, conf, srv, log)
	if err != nil {
		ln.Close()
		return g.Stop(err)
	}
	// The picker commits until the HTTP service has let in-flight hook
	// events finish: a 200 means the event is stored.
	g.Go("http service and hiveserver picker", func(ctx context.Context) error {
		return runBehind(ctx, func(ctx context.Context) error { return srv.Serve(ctx, ln) }, picker.Run)
	})
	return g.Run(ctx)
}

// namenodeComponents adds to g what serves beside srv: the HiveServer
// picker (and its store) mounted on srv, and the watcher and publisher of
// the ZooKeeper flags.
func namenodeComponents(ctx context.Context, g *group, f *namenodeFlags, conf hadoopConf, srv *namenode.Server, log *slog.Logger) (*hiveserver.Picker, error) {
	var pub *discovery.Publisher // set before anything runs
	w, err := f.hs2.watcher(log, func() {
		if pub != nil {
			pub.Notify()
		}
	})
	if err != nil {
		return nil, err
	}
	var sources []hiveserver.Source
	if w != nil {
		sources = append(sources, w)
		g.Go("hiveserver2 watcher", w.Run)
	}
	picker, store, err := openHiveserver(ctx, f.store, f.hiveservers, sources, conf, log)
	if err != nil {
		return nil, err
	}
	g.Cleanup("hive event store", store.Close)
	mountPicker(srv, picker, time.Now)
	eligible := func() []string {
		now := time.Now()
		return picker.Ranked(now, srv.SlowHosts(now))
	}
	if pub, err = f.hs2.publisher(log, eligible, w); err != nil || pub == nil {
		return picker, err
	}
	g.Go("hiveserver2 publisher", func(ctx context.Context) error {
		err := pub.Run(ctx)
		if err != nil && ctx.Err() != nil {
			// Stopping: the znodes go with the session anyway.
			log.Warn("unpublish HiveServers", slog.Any("err", err))
			return nil
		}
		return err
	})
	return picker, nil
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
	if err := f.hs2.check(); err != nil {
		return cfg, nil, err
	}
	conf, err := f.conf.load()
	if err != nil {
		return cfg, nil, err
	}
	if err := namenodeConf(conf, &cfg); err != nil {
		return cfg, nil, err
	}
	if err := readTopology(&cfg); err != nil {
		return cfg, nil, err
	}
	if f.tokenFile != "" {
		if cfg.AuthToken, err = readTokenFile(f.tokenFile); err != nil {
			return cfg, nil, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, nil, fmt.Errorf("configuration: %w", err)
	}
	return cfg, conf, nil
}
