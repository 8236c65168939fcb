package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

const adminSynopsis = "-namenode SERVICES (-report [-live] [-stale] [-dead] [-excluded] [-json] | -refresh-nodes | -forget H:P)" +
	" [-tls-ca F [-tls-cert F -tls-key F]] [-auth-token-file F]"

// adminTimeout bounds all the requests of "admin".
const adminTimeout = 30 * time.Second

// adminFlags are the flags of "slowpeer admin".
type adminFlags struct {
	namenodes string
	report    bool
	refresh   bool
	forget    string
	asJSON    bool
	states    map[namenode.State]*bool
	client    clientFlags
}

func (f *adminFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.namenodes, "namenode", "", "`SERVICES`: comma-separated base URLs of the service replicas (http://nn1:9871,...), "+
		"or a registry zk://H:P/ROOT or etcd://H:P/ROOT; -report asks the first that answers, -refresh-nodes and -forget every one (required)")
	fs.BoolVar(&f.report, "report", false, "list every DataNode: state, last heartbeat, slow set membership and why, reporters (as hdfs dfsadmin -report)")
	refresh := "re-read dfs.hosts.exclude on every replica (as hdfs dfsadmin -refreshNodes; SIGHUP does the same)"
	fs.BoolVar(&f.refresh, "refresh-nodes", false, refresh)
	fs.BoolVar(&f.refresh, "refreshNodes", false, "the same as -refresh-nodes")
	fs.StringVar(&f.forget, "forget", "", "forget the DataNode `H:P` now on every replica: table, reports, slow set, state file (it comes back if it sends a heartbeat)")
	fs.BoolVar(&f.asJSON, "json", false, "with -report: print JSON instead of a table")
	f.states = map[namenode.State]*bool{}
	for _, st := range []namenode.State{namenode.Live, namenode.Stale, namenode.Dead, namenode.Excluded} {
		f.states[st] = fs.Bool(string(st), false, fmt.Sprintf("with -report: list the %s DataNodes (several of these flags add up; none: all)", st))
	}
	f.client.register(fs, "every request (the POSTs of -refresh-nodes and -forget need it whenever the service has a token)")
}

// runAdmin runs "slowpeer admin": the operator's actions on a service, as
// "hdfs dfsadmin" has them.
func runAdmin(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("admin", adminSynopsis, stderr)
	var f adminFlags
	f.register(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	actions := 0
	for _, on := range []bool{f.report, f.refresh, f.forget != ""} {
		if on {
			actions++
		}
	}
	if actions != 1 {
		return usageError{errors.New("give one of -report, -refresh-nodes, -forget H:P")}
	}
	if f.namenodes == "" {
		return usageError{errors.New("-namenode SERVICES is required")}
	}
	if f.forget != "" {
		if err := reports.ValidateNode(f.forget); err != nil {
			return usageError{fmt.Errorf("-forget: %w", err)}
		}
	}
	client, err := f.client.client()
	if err != nil {
		return usageError{err}
	}
	ctx, cancel := context.WithTimeout(ctx, adminTimeout)
	defer cancel()
	bases, err := adminBases(ctx, f.namenodes, client)
	if err != nil {
		return err
	}
	switch {
	case f.report:
		return firstAnswer(bases, func(base string) error { return f.writeReport(ctx, client, base, stdout) })
	case f.refresh:
		return onEvery(bases, func(base string) error { return refreshNodes(ctx, client, base, stdout) })
	default:
		return onEvery(bases, func(base string) error { return forgetNode(ctx, client, base, f.forget, stdout) })
	}
}

// adminBases returns the base URLs of SERVICES: a comma-separated list,
// each checked, or the replicas registered at a registry URL that may be
// sent c's token (serviceBases).
func adminBases(ctx context.Context, spec string, c serviceClient) ([]string, error) {
	if discovery.IsRegistryURL(spec) {
		return serviceBases(ctx, spec, nil, c)
	}
	bases, err := splitList("-namenode", spec)
	if err != nil {
		return nil, usageError{err}
	}
	for i, b := range bases {
		u, err := url.Parse(b)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, usageError{fmt.Errorf("-namenode %q is not an http or https URL", b)}
		}
		bases[i] = strings.TrimRight(b, "/")
	}
	return bases, nil
}

// onEvery runs do on every base, and returns the errors of those that
// failed, joined.
func onEvery(bases []string, do func(base string) error) error {
	var errs []error
	for _, b := range bases {
		if err := do(b); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// post sends POST target with a JSON body (nil: none) and reads at most
// limit bytes of the answer.
func (c serviceClient) post(ctx context.Context, target string, body []byte, limit int) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	return c.read(req, limit)
}

// refreshNodes asks the service at base to re-read dfs.hosts.exclude.
func refreshNodes(ctx context.Context, client serviceClient, base string, w io.Writer) error {
	target := base + namenode.RefreshPath
	body, status, err := client.post(ctx, target, nil, 1<<20)
	if err != nil {
		return fmt.Errorf("refresh nodes: %w", err)
	}
	if err := answerError(target, status, body); err != nil {
		return fmt.Errorf("refresh nodes: %w", err)
	}
	var r namenode.Refresh
	if err := strictJSON(body, &r); err != nil {
		return fmt.Errorf("refresh nodes: bad answer from %s: %w", target, err)
	}
	if r.File == "" {
		_, err = fmt.Fprintf(w, "Refresh nodes successful for %s: no %s, no DataNode excluded\n", base, namenode.HostsExcludeKey)
		return err
	}
	fmt.Fprintf(w, "Refresh nodes successful for %s: %s %s, %d entries, %d DataNodes excluded\n",
		base, namenode.HostsExcludeKey, r.File, r.Entries, r.Excluded)
	if len(r.Unresolved) > 0 {
		fmt.Fprintf(w, "  names that did not resolve (matched as written only): %s\n", strings.Join(r.Unresolved, " "))
	}
	return nil
}

// forgetNode asks the service at base to forget node.
func forgetNode(ctx context.Context, client serviceClient, base, node string, w io.Writer) error {
	target := base + namenode.ForgetPath
	req, _ := json.Marshal(map[string]string{"node": node})
	body, status, err := client.post(ctx, target, req, 1<<20)
	if err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	if status == http.StatusNotFound {
		_, err := fmt.Fprintf(w, "%s did not know %s\n", base, node)
		return err
	}
	if err := answerError(target, status, body); err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	var a struct {
		Node  string `json:"node"`
		State string `json:"state"`
	}
	if err := strictJSON(body, &a); err != nil {
		return fmt.Errorf("forget: bad answer from %s: %w", target, err)
	}
	was := "listed only in reports"
	if a.State != "" {
		was = "it was " + a.State
	}
	fmt.Fprintf(w, "Forgot %s on %s (%s)\n", node, base, was)
	if a.State == string(namenode.Live) || a.State == string(namenode.Stale) {
		fmt.Fprintf(w, "  its agent still runs: it comes back at its next heartbeat unless it is stopped\n")
	}
	return nil
}
