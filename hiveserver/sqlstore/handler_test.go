package sqlstore

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/hiveserver"
)

const formType = "application/x-www-form-urlencoded"

// The exact bodies of a Java hook, through real HTTP, come out of every
// SQL store byte for byte: Chinese, '+', '%', '&', newlines, a 4-byte
// emoji (utf8mb4 on MySQL).
func TestSendHandlerJavaBodies(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		p, _ := openPicker(t, s, hiveserver.Config{})
		srv := httptest.NewServer(p.SendHandler()) // listens on 127.0.0.1
		defer srv.Close()
		for i, c := range readHookCases(t) {
			resp, err := http.Post(srv.URL+hiveserver.SendPath, formType+"; charset=UTF-8", strings.NewReader(c.Body))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != "{}\n" {
				t.Fatalf("case %d: %d %s", i, resp.StatusCode, body)
			}
			q, ok, err := s.Lookup(context.Background(), "hs1.example.com:10000", c.QueryID)
			if !ok || err != nil || q.QueryStr != c.QueryStr || q.JobName != c.JobName || q.Hook != c.Hook {
				t.Errorf("case %d: stored %#v, %v, %v; want queryStr %q jobName %q", i, q, ok, err, c.QueryStr, c.JobName)
			}
		}
	})
}
