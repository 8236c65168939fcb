package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/namenode"
)

// A tool that finds DataNodes through the NameNode (hadoop_jmx_exporter:
// the host of each LiveNodes key, the port of its infoAddr) finds an
// agent's HTTP port and reads its DataNodeInfo there.
func TestJMXLiveNodesFindAgents(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ncfg := namenode.DefaultLocalConfig()
	ncfg.Logger = quiet
	srv, err := namenode.New(ncfg)
	if err != nil {
		t.Fatal(err)
	}
	svc := httptest.NewServer(srv.Handler())
	defer svc.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	acfg := datanode.DefaultLocalConfig()
	acfg.ID, acfg.NameNodes, acfg.HTTPListener, acfg.Logger = "127.0.0.1:9866", []string{svc.URL}, ln, quiet
	acfg.DataListen = ""
	agent, err := datanode.New(acfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- agent.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent: %v", err)
		}
	}()

	var info map[string]struct {
		InfoAddr string `json:"infoAddr"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/jmx?qry="+namenode.NameNodeInfoBean, nil))
		beans, err := jmx.Parse(w.Body.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := jmx.Find(beans, namenode.NameNodeInfoBean)
		live, _ := b.Attr("LiveNodes")
		if s, ok := live.(string); ok && json.Unmarshal([]byte(s), &info) == nil && info[acfg.ID].InfoAddr != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("LiveNodes never listed the agent's infoAddr: %v", live)
		}
		time.Sleep(20 * time.Millisecond) // polling, not an assertion
	}
	if got := info[acfg.ID].InfoAddr; got != ln.Addr().String() {
		t.Fatalf("infoAddr %q, want the agent's HTTP port %s", got, ln.Addr())
	}
	host, _, _ := net.SplitHostPort(acfg.ID)
	_, port, _ := net.SplitHostPort(info[acfg.ID].InfoAddr)
	resp, err := http.Get("http://" + net.JoinHostPort(host, port) + "/jmx")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	beans, err := jmx.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := jmx.Find(beans, jmx.DataNodeInfoBean); !ok {
		t.Fatalf("the agent's /jmx has no DataNodeInfo:\n%s", body)
	}
}
