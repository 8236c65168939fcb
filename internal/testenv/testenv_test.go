package testenv

import "testing"

func TestEnvPresent(t *testing.T) {
	t.Setenv("SLOWPEER_TEST_PROBE", "a:1")
	if got := Env(t, "SLOWPEER_TEST_PROBE"); got != "a:1" {
		t.Fatalf("Env = %q, want a:1", got)
	}
}

func TestMissingFailsWhenRequired(t *testing.T) {
	t.Setenv(RequireEnv, "1")
	ft := &fakeTB{}
	func() {
		defer func() { recover() }()
		Missing(ft, "x is gone")
	}()
	if !ft.fatal || ft.skipped {
		t.Fatalf("fatal=%v skipped=%v, want a failure and no skip", ft.fatal, ft.skipped)
	}
}

func TestMissingSkipsOtherwise(t *testing.T) {
	t.Setenv(RequireEnv, "")
	ft := &fakeTB{}
	func() {
		defer func() { recover() }()
		Missing(ft, "x is gone")
	}()
	if ft.fatal || !ft.skipped {
		t.Fatalf("fatal=%v skipped=%v, want a skip", ft.fatal, ft.skipped)
	}
}

// fakeTB records Fatalf and Skip; both stop the caller with a panic, as the
// real ones stop it with runtime.Goexit.
type fakeTB struct {
	testing.TB
	fatal, skipped bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Fatalf(string, ...any) { f.fatal = true; panic("fatal") }
func (f *fakeTB) Skip(...any)           { f.skipped = true; panic("skip") }
