package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/namenode"
)

// stateFileName is the state file's name when -state-file is not given:
// beside the SQLite store, else in the working directory.
const stateFileName = "slowpeer-namenode-state.json"

// stateFlags say where a starting service replica takes the state it
// lost (the valid slow-peer reports and the DataNode table): from another
// replica that runs, else from its own file.
type stateFlags struct {
	replicas string
	file     string
}

func (f *stateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.replicas, "replicas", "", "base `URLs` of the other service replicas (http://h:p,...): a starting replica takes their state before it serves")
	fs.StringVar(&f.file, "state-file", "", "`F` where the service saves its state every heartbeat interval and reads it at start when no replica answers (default "+stateFileName+" beside the sqlite store; \"none\": no file)")
}

// check names the first bad flag.
func (f *stateFlags) check() error {
	_, err := f.peers()
	return err
}

// peers returns the -replicas URLs.
func (f *stateFlags) peers() ([]string, error) {
	var out []string
	for _, s := range strings.Split(f.replicas, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("-replicas: %q is not an http:// or https:// base URL", s)
		}
		out = append(out, strings.TrimRight(s, "/"))
	}
	return out, nil
}

// path returns the state file, "" for none.
func (f *stateFlags) path(store string) string {
	switch f.file {
	case "none":
		return ""
	case "":
		if p, ok := strings.CutPrefix(store, "sqlite:"); ok {
			return filepath.Join(filepath.Dir(p), stateFileName)
		}
		return stateFileName
	}
	return f.file
}

// stateClient is the client that asks the other replicas for their state,
// with the replica's own TLS config for them (nil: plain HTTP, or the
// system's roots); the server sends its bearer token.
func stateClient(peer *tls.Config) *http.Client {
	c := &http.Client{Timeout: namenode.DefaultRestoreTimeout}
	if peer != nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = peer
		c.Transport = tr
	}
	return c
}

// startState adds to g the member that fills srv, while it already
// serves /healthz and answers 503 to the rest (namenode.BeginRestore):
// from the first replica that peers names to answer, else from the state
// file; then it keeps the file. A state that cannot be had is no error:
// the service starts empty and says why.
func startState(g *group, srv *namenode.Server, f *stateFlags, store string, client *http.Client, peers func(context.Context) []string) {
	path := f.path(store)
	srv.BeginRestore()
	g.Go("state", func(ctx context.Context) error {
		srv.StartState(ctx, peers(ctx), client, path)
		client.CloseIdleConnections()
		if path == "" {
			<-ctx.Done()
			return nil
		}
		return srv.RunStateFile(ctx, path, max(srv.Config().HeartbeatInterval, 100*time.Millisecond))
	})
}
