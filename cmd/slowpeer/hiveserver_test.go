package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// hiveserver pick against the real handlers: prints host:port, or exits 1
// with the service's reason.
func TestHiveserverPick(t *testing.T) {
	ctx := context.Background()
	conf := hadoopConf{hiveserver.QueryTimeoutKey: "1h"}
	picker, store, err := openHiveserver(ctx, "sqlite:"+filepath.Join(t.TempDir(), "hs.db"),
		"hs1.example:10000, hs2.example:10000", nil, false, false, conf, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- picker.Run(runCtx) }()
	defer func() {
		stop()
		if err := <-ran; err != nil {
			t.Error(err)
		}
	}()
	now := time.Now()
	if err := picker.Ingest(ctx, hiveserver.Event{Server: "hs1.example:10000", Hook: hiveserver.PreExec,
		QueryID: "q1", TimeMs: now.UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	var slow []string
	mux := http.NewServeMux()
	mux.Handle("/prefix"+hiveserver.PickPath, http.StripPrefix("/prefix", picker.PickHandler(func() []string { return slow })))
	mux.HandleFunc("/broken"+hiveserver.PickPath, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>gateway</html>", http.StatusBadGateway)
	})
	mux.HandleFunc("/bad"+hiveserver.PickPath, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"server":"no-port"}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	f := func(name string, url string, wantCode int, wantOut, wantErr string) {
		t.Helper()
		code, out, errOut := runCLI("hiveserver", "pick", "-namenode", url)
		if code != wantCode || out != wantOut || !strings.Contains(errOut, wantErr) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q", name, code, out, errOut, wantCode, wantOut, wantErr)
		}
	}
	f("the idle one", srv.URL+"/prefix/", 0, "hs2.example:10000\n", "")
	slow = []string{"hs2.example"}
	f("not the slow one", srv.URL+"/prefix", 0, "hs1.example:10000\n", "")
	slow = []string{"hs1.example", "hs2.example"}
	f("none eligible", srv.URL+"/prefix", 1, "",
		"slowpeer hiveserver: no eligible HiveServer: all 2 known are on slow hosts (hs1.example:10000, hs2.example:10000)\n")
	f("not a service", srv.URL+"/broken", 1, "", "502 Bad Gateway")
	f("bad answer", srv.URL+"/bad", 1, "", "answered a bad server")
	f("nobody listens", "http://127.0.0.1:1", 1, "", "pick:")
}

func TestHiveserverUsage(t *testing.T) {
	f := func(args []string, want string) {
		t.Helper()
		code, out, errOut := runCLI(append([]string{"hiveserver"}, args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, out, errOut, want)
		}
	}
	f(nil, "missing subcommand pick")
	f([]string{"choose"}, `unknown subcommand "choose"`)
	f([]string{"pick"}, "-namenode URL is required")
	f([]string{"pick", "-namenode", "nn:9871"}, `"nn:9871" is not an http or https URL`)
	f([]string{"pick", "-namenode", "http://nn:9871?x=1"}, "is not an http or https URL")
	f([]string{"pick", "-namenode", "http://nn", "extra"}, `unexpected argument "extra"`)
	f([]string{"pick", "-bogus"}, "flag provided but not defined")
	if code, out, _ := runCLI("hiveserver", "pick", "-h"); code != 0 || out != "" {
		t.Errorf("pick -h: exit %d, stdout %q", code, out)
	}
	if code, out, _ := runCLI("hiveserver", "help"); code != 0 || !strings.Contains(out, "pick -namenode SERVICES") {
		t.Errorf("hiveserver help: exit %d, stdout %q", code, out)
	}
}

func TestOpenHiveserverErrors(t *testing.T) {
	f := func(store, servers string, conf hadoopConf, want string) {
		t.Helper()
		_, s, err := openHiveserver(context.Background(), store, servers, nil, false, false, conf, slog.New(slog.DiscardHandler))
		if err == nil {
			s.Close()
			t.Fatalf("openHiveserver(%q, %q, %v) works", store, servers, conf)
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("openHiveserver(%q, %q, %v): %v; want %q", store, servers, conf, err, want)
		}
	}
	db := "sqlite:" + filepath.Join(t.TempDir(), "hs.db")
	f("postgres:x", "", nil, "is not sqlite:PATH or mysql:DSN")
	f(db, "hs1:10000,,hs2:10000", nil, "-hiveservers")
	f(db, "hs1", nil, `node id "hs1" is not host:port`)
	f(db, "", hadoopConf{hiveserver.QueryTimeoutKey: "soon"}, "configuration slowpeer.hiveserver.query.timeout")
	f(db, "", hadoopConf{hiveserver.DefaultCostKey: "0"}, "slowpeer.hiveserver.load.default")
}

func TestHiveserverConf(t *testing.T) {
	cfg := hiveserver.DefaultConfig()
	err := hiveserverConf(hadoopConf{
		hiveserver.QueryTimeoutKey: "12h", hiveserver.MinRemainingKey: "500",
		hiveserver.DefaultCostKey: "2m", hiveserver.ServerExpiryKey: "1d",
	}, &cfg)
	if err != nil || cfg.QueryTimeout != 12*time.Hour || cfg.MinRemaining != 500*time.Millisecond ||
		cfg.DefaultCost != 2*time.Minute || cfg.ServerExpiry != 24*time.Hour {
		t.Fatalf("%+v, %v", cfg, err)
	}
	def := hiveserver.DefaultConfig()
	if err := hiveserverConf(hadoopConf{}, &def); err != nil || def.QueryTimeout != hiveserver.DefaultQueryTimeout {
		t.Fatalf("defaults: %+v, %v", def, err)
	}
}

func TestHiveserverConfigRefresh(t *testing.T) {
	f := func(store string, conf hadoopConf, want time.Duration) {
		t.Helper()
		cfg, err := hiveserverConfig(store, "", conf)
		if err != nil || cfg.RefreshInterval != want {
			t.Fatalf("hiveserverConfig(%q, %v): RefreshInterval %v, %v; want %v", store, conf, cfg.RefreshInterval, err, want)
		}
	}
	// A shared MySQL store is reloaded, by default every 10s; SQLite,
	// which one service owns, is not.
	f("sqlite:/tmp/x.db", nil, 0)
	f("mysql:u:p@tcp(127.0.0.1:3306)/db", nil, hiveserver.DefaultSharedRefreshInterval)
	f("mysql:u:p@tcp(127.0.0.1:3306)/db", hadoopConf{hiveserver.RefreshIntervalKey: "2500"}, 2500*time.Millisecond)
	f("sqlite:/tmp/x.db", hadoopConf{hiveserver.RefreshIntervalKey: "1m"}, time.Minute)
	if _, err := hiveserverConfig("sqlite:/tmp/x.db", "", hadoopConf{hiveserver.RefreshIntervalKey: "0"}); err == nil {
		t.Fatal("a refresh interval of 0 is accepted")
	}
}
