package reports

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	f := func(s, want string) {
		t.Helper()
		if got := Clip(s); got != want {
			t.Errorf("Clip(%.60q…) = %q, want %q", s, got, want)
		}
	}
	f("", "")
	f("10.0.0.1:9866", "10.0.0.1:9866")
	f(strings.Repeat("a", ClipBytes), strings.Repeat("a", ClipBytes))
	f(strings.Repeat("a", ClipBytes+1), strings.Repeat("a", ClipBytes-3)+"…")
	// Never cuts a rune in two.
	for n := range 12 {
		s := strings.Repeat("x", n) + strings.Repeat("é", 40)
		if got := Clip(s); !utf8.ValidString(got) || len(got) > ClipBytes {
			t.Errorf("Clip(%q) = %q (%d bytes)", s, got, len(got))
		}
	}
	if got := ClipTo("abcdef", 5); got != "ab…" {
		t.Errorf("ClipTo = %q", got)
	}
}

// An error about a huge node id quotes it clipped (a hook's 5 MiB server
// field goes through ValidateNode too).
func TestValidateNodeClipsInput(t *testing.T) {
	for _, id := range []string{
		strings.Repeat("h", 900_000) + ":9866",
		strings.Repeat("h", 900_000),
		"h:" + strings.Repeat("9", 900_000),
	} {
		err := ValidateNode(id)
		if err == nil || len(err.Error()) > 120 {
			t.Fatalf("ValidateNode: %d-byte error", len(err.Error()))
		}
	}
	_, err := ParseHeartbeat([]byte(`{"node":"a:1","` + strings.Repeat("k", 900_000) + `":1}`))
	if err == nil || len(err.Error()) > 120 {
		t.Fatalf("unknown field: %v", err)
	}
}
