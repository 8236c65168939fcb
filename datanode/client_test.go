package datanode

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/reports"
)

// The request of DESIGN.md: POST {base}/v1/heartbeat, JSON body, bearer
// token when one is set.
func TestHeartbeatClientRequest(t *testing.T) {
	type seen struct {
		method, path, auth, ctype string
		body                      []byte
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), b}
		w.Write([]byte(`{"slow":true}`))
	}))
	defer srv.Close()
	f := func(base, token, wantPath, wantAuth string) {
		t.Helper()
		c, err := newHeartbeatClient(base, token, false, srv.Client())
		if err != nil {
			t.Fatal(err)
		}
		hb := reports.Heartbeat{Node: "10.0.0.2:9866", SlowPeers: []reports.SlowPeer{}}
		reply, _, err := c.SendHeartbeat(context.Background(), hb)
		if err != nil || !reply.Slow {
			t.Fatalf("SendHeartbeat = %+v, %v", reply, err)
		}
		s := <-got
		if s.method != http.MethodPost || s.path != wantPath || s.auth != wantAuth || s.ctype != "application/json" ||
			string(s.body) != `{"node":"10.0.0.2:9866","slowPeers":[]}` {
			t.Fatalf("request %s %s auth %q type %q body %s", s.method, s.path, s.auth, s.ctype, s.body)
		}
	}
	f(srv.URL, "", "/v1/heartbeat", "")
	f(srv.URL+"/", "s3cret", "/v1/heartbeat", "Bearer s3cret")
	f(srv.URL+"/nn1", "", "/nn1/v1/heartbeat", "")
}

func TestHeartbeatClientErrors(t *testing.T) {
	f := func(status int, body, wantErr string) {
		t.Helper()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			io.WriteString(w, body)
		}))
		defer srv.Close()
		c, _ := newHeartbeatClient(srv.URL, "", false, srv.Client())
		_, _, err := c.SendHeartbeat(context.Background(), reports.Heartbeat{Node: "a:1"})
		if err == nil || !strings.Contains(err.Error(), wantErr) || !strings.Contains(err.Error(), srv.URL) {
			t.Fatalf("status %d %s: err = %v, want one naming the service and %q", status, body, err, wantErr)
		}
	}
	f(401, `{"error":"missing or wrong bearer token"}`, "status 401 Unauthorized: missing or wrong bearer token")
	f(400, `{"error":"node: missing node id"}`, "status 400 Bad Request: node: missing node id")
	f(413, `{"error":"heartbeat body larger than 1048576 bytes"}`, "status 413")
	f(502, `<html>bad gateway</html>`, "status 502 Bad Gateway: no error message")
	f(200, `{"slow":"yes"}`, "malformed reply")
	f(200, `{}`, `no boolean "slow"`)
	f(200, `{"slow":false} {"slow":true}`, "data after")
	f(200, ``, "malformed reply")
	f(200, strings.Repeat(" ", reports.MaxReplyBytes+1), "larger than")

	// Nobody listening.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c, _ := newHeartbeatClient(url, "", false, http.DefaultClient)
	if _, _, err := c.SendHeartbeat(context.Background(), reports.Heartbeat{Node: "a:1"}); err == nil {
		t.Fatal("a heartbeat to a closed port succeeded")
	}
}
