package datanode

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/slowpeer/slowpeer/reports"
)

// A service found in a registry over plain HTTP gets the token only once
// it proved it holds it: a real one after one challenge, a fake entry
// never, nor a fake that relays the challenge to a real service (the
// proof names the real one's address).
func TestHeartbeatClientProof(t *testing.T) {
	const token = "s3cret"
	var mu sync.Mutex
	var tokens []string // the Authorization headers the services saw
	service := func(addr func() string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			tokens = append(tokens, r.Header.Get("Authorization"))
			mu.Unlock()
			if n := r.Header.Get(reports.ChallengeHeader); reports.ValidChallenge(n) && addr != nil {
				w.Header().Set(reports.ProofHeader, reports.Proof(token, addr(), n))
			}
			if r.Header.Get("Authorization") != "Bearer "+token {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, `{"error":"missing or wrong bearer token"}`)
				return
			}
			io.WriteString(w, `{"slow":false}`)
		})
	}
	var real *httptest.Server
	real = httptest.NewServer(service(func() string { return strings.TrimPrefix(real.URL, "http://") }))
	defer real.Close()
	fake := httptest.NewServer(service(nil))
	defer fake.Close()
	relay := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tokens = append(tokens, r.Header.Get("Authorization"))
		mu.Unlock()
		req, _ := http.NewRequest(r.Method, real.URL+r.URL.Path, r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	defer relay.Close()

	f := func(base string, wantOK bool, wantTokens int) {
		t.Helper()
		mu.Lock()
		tokens = nil
		mu.Unlock()
		c, err := newHeartbeatClient(base, token, true, http.DefaultClient)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			_, _, err = c.SendHeartbeat(context.Background(), reports.Heartbeat{Node: "10.0.0.2:9866"})
		}
		mu.Lock()
		defer mu.Unlock()
		sent := 0
		for _, a := range tokens {
			if a != "" {
				sent++
			}
		}
		if (err == nil) != wantOK || sent != wantTokens {
			t.Errorf("%s: err %v, token sent %d times (%q); want ok %v, %d", base, err, sent, tokens, wantOK, wantTokens)
		}
	}
	f(real.URL, true, 3)   // challenged once, then the token with each
	f(fake.URL, false, 0)  // never proves
	f(relay.URL, false, 0) // proves for the real address, not its own
	if len(tokens) == 0 {
		t.Fatal("the relay saw nothing")
	}
}
