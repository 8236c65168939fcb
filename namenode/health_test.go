package namenode

import (
	"testing"
)

// TestHealthAndReady: /healthz answers ok always and without the token;
// /readyz and every other route answer 503 between BeginRestore and the
// end of StartState, then serve.
func TestHealthAndReady(t *testing.T) {
	s, _, _ := newTestServer(t, func(c *Config) { c.AuthToken, c.AuthReads = "s3cret", true })
	ok := func(path string) {
		t.Helper()
		if w := do(t, s, "GET", path, ""); w.Code != 200 || w.Body.String() != "ok\n" {
			t.Fatalf("GET %s: %d %q", path, w.Code, w.Body)
		}
	}
	ok(HealthzPath)
	ok(ReadyzPath)
	s.BeginRestore()
	ok(HealthzPath)
	wantError(t, do(t, s, "GET", ReadyzPath, ""), 503, "restoring")
	w := do(t, s, "GET", SlowPeersPath, "", "Authorization", "Bearer s3cret")
	wantError(t, w, 503, "restoring")
	if w.Header().Get("Retry-After") != "1" {
		t.Fatal("no Retry-After while restoring")
	}
	wantError(t, do(t, s, "POST", HeartbeatPath, `{"node":"10.0.0.2:9866"}`, "Authorization", "Bearer s3cret"), 503, "restoring")
	if got := s.StartState(t.Context(), nil, nil, ""); got != "empty" {
		t.Fatalf("StartState: %s", got)
	}
	ok(ReadyzPath)
	if w := do(t, s, "GET", SlowPeersPath, "", "Authorization", "Bearer s3cret"); w.Code != 200 {
		t.Fatalf("after the restore: %d", w.Code)
	}
	for _, e := range s.OpenEndpoints() {
		t.Errorf("open with -auth-reads: %s", e)
	}
}
