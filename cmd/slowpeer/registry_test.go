package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/namenode"
)

// Without -registry, GET /v1/cluster shows a lone service that leads
// itself, with no registry; HEAD works as GET does.
func TestClusterWithoutRegistry(t *testing.T) {
	srv, err := namenode.New(namenode.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	mountCluster(srv, nil, "127.0.0.1:9871")
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + ClusterPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"self":"127.0.0.1:9871","leader":"127.0.0.1:9871","replicas":["127.0.0.1:9871"],"registry":null}` + "\n"
	if resp.StatusCode != http.StatusOK || string(body) != want || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("GET %s: %s %q, want %q", ClusterPath, resp.Status, body, want)
	}
	resp, err = http.Head(ts.URL + ClusterPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD %s: %s", ClusterPath, resp.Status)
	}
}

func TestRegistryFlags(t *testing.T) {
	f := func(url, advertise, wantErr string) {
		t.Helper()
		r := registryFlags{url: url, advertise: advertise}
		_, err := r.check()
		if (err == nil) != (wantErr == "") || err != nil && !strings.Contains(err.Error(), wantErr) {
			t.Errorf("-registry %q -advertise %q: %v, want %q", url, advertise, err, wantErr)
		}
	}
	f("", "", "")
	f("zk://h:2181/x", "", "")
	f("", "h:1", "-advertise needs -registry")
	f("consul://h/x", "", "-registry")
}
