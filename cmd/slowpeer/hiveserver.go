package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/hiveserver/sqlstore"
	"github.com/slowpeer/slowpeer/reports"
)

const hiveserverSynopsis = "pick -namenode SERVICES [-tls-ca F [-tls-cert F -tls-key F]] [-auth-token-file F] [-conf DIR] [-D key=value]..."

// hiveserverPickTimeout bounds the whole request of "hiveserver pick".
const hiveserverPickTimeout = 30 * time.Second

// runHiveserver runs "slowpeer hiveserver pick -namenode URL": it asks a
// NameNode-side service for the HiveServer to use and prints its
// host:port, for scripts (beeline -u "jdbc:hive2://$(slowpeer hiveserver
// pick -namenode ...)/"). When none is eligible it exits 1 with the
// service's reason.
func runHiveserver(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "usage: slowpeer hiveserver %s\n", hiveserverSynopsis)
		return usageError{errors.New("missing subcommand pick")}
	}
	switch args[0] {
	case "pick":
		return runHiveserverPick(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprintf(stdout, "usage: slowpeer hiveserver %s\n", hiveserverSynopsis)
		return errHelp
	}
	return usageError{fmt.Errorf("unknown subcommand %q; want pick", args[0])}
}

func runHiveserverPick(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("hiveserver", hiveserverSynopsis, stderr)
	namenode := fs.String("namenode", "", "base `URL` of the NameNode-side service, e.g. http://nn1:9871, or a registry zk://H:P/ROOT or etcd://H:P/ROOT whose first replica that answers is asked (required)")
	var cf clientFlags
	cf.register(fs, "the request, for a service with -auth-reads")
	var conf confFlags
	conf.register(fs, etcdTLSKeys.defaults(discovery.EtcdTLS{}))
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	client, err := cf.client()
	if err != nil {
		return usageError{err}
	}
	etcd, err := etcdTLSOf(conf)
	if err != nil {
		return usageError{err}
	}
	if *namenode == "" {
		return usageError{errors.New("-namenode URL is required")}
	}
	ctx, cancel := context.WithTimeout(ctx, hiveserverPickTimeout)
	defer cancel()
	bases, err := serviceBases(ctx, *namenode, etcd, client)
	if err != nil {
		return err
	}
	return firstAnswer(bases, func(base string) error { return pickFrom(ctx, client, base, stdout) })
}

// pickFrom asks the service at base for a HiveServer and prints it.
func pickFrom(ctx context.Context, client serviceClient, base string, stdout io.Writer) error {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return usageError{fmt.Errorf("-namenode %q is not an http or https URL", base)}
	}
	target := strings.TrimRight(u.String(), "/") + hiveserver.PickPath
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return fmt.Errorf("pick: %w", err)
	}
	resp, err := client.do(req)
	if err != nil {
		return noAnswerError{fmt.Errorf("pick: %w", err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("pick: read answer of %s: %w", target, err)
	}
	var answer struct {
		Server string `json:"server"`
	}
	jsonErr := json.Unmarshal(body, &answer)
	msg, hasMsg := reports.ErrorMessage(body)
	switch {
	case resp.StatusCode == http.StatusOK && jsonErr == nil:
		if err := reports.ValidateNode(answer.Server); err != nil {
			return fmt.Errorf("pick: %s answered a bad server: %w", target, err)
		}
		fmt.Fprintln(stdout, answer.Server)
		return nil
	case resp.StatusCode == http.StatusServiceUnavailable && hasMsg:
		return errors.New(msg) // the service's reason, as it gave it
	case hasMsg:
		return fmt.Errorf("pick: %s answered %s: %s", target, resp.Status, msg)
	default:
		return fmt.Errorf("pick: %s answered %s: %q", target, resp.Status, clipBody(body))
	}
}

// hiveserverDefaultStore is the suggested default of namenode -store: an
// SQLite file in the working directory.
const hiveserverDefaultStore = "sqlite:slowpeer-hiveserver.db"

// openHiveserver opens the HiveServer picker of "slowpeer namenode": its
// store (-store DSN), its static servers (-hiveservers H:P,...), whether it
// takes hook events only of the servers known from them and the sources
// (knownOnly), and the slowpeer.hiveserver.* keys of conf, with the workload loaded from the
// store. Run the Picker; once it has stopped, close the Store.
//
// With leaderMigrates the store is opened without touching its schema
// (sqlstore.Connect): the leader of the replicas migrates it, and until it
// has the Picker refuses picks and events and Run waits for it. Else it is
// migrated here, as a lone service is its own leader.
func openHiveserver(ctx context.Context, store, servers string, sources []hiveserver.Source, knownOnly, leaderMigrates bool, conf hadoopConf, log *slog.Logger) (*hiveserver.Picker, *sqlstore.Store, error) {
	cfg, err := hiveserverConfig(store, servers, conf)
	if err != nil {
		return nil, nil, usageError{err}
	}
	cfg.Logger = log
	cfg.Sources = sources
	cfg.KnownServersOnly = knownOnly
	open := sqlstore.Open
	if leaderMigrates {
		open = sqlstore.Connect
	}
	s, err := open(ctx, store)
	if err != nil {
		return nil, nil, err
	}
	p, err := hiveserver.New(cfg, s)
	if err == nil {
		err = p.Refresh(ctx)
		if errors.Is(err, hiveserver.ErrStoreNotReady) {
			err = nil // Run waits for the leader, and says so
		}
	}
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return p, s, nil
}

// sharedStore reports whether the store of dsn may be shared by several
// service replicas (MySQL), so that its schema is the leader's to
// migrate; an SQLite file belongs to its process.
func sharedStore(dsn string) bool { return strings.HasPrefix(dsn, "mysql:") }

// hiveserverConfig is the picker's Config for the -store and -hiveservers
// flags and the slowpeer.hiveserver.* keys of conf.
func hiveserverConfig(store, servers string, conf hadoopConf) (hiveserver.Config, error) {
	cfg := hiveserver.DefaultConfig()
	if servers != "" {
		list, err := splitList("-hiveservers", servers)
		if err != nil {
			return cfg, err
		}
		cfg.Servers = list
	}
	if sharedStore(store) {
		// Other replicas may write it: reload what they stored.
		cfg.RefreshInterval = hiveserver.DefaultSharedRefreshInterval
	}
	if err := hiveserverConf(conf, &cfg); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}
