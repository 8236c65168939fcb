package reports

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestErrorMessage(t *testing.T) {
	f := func(body, want string, wantOK bool) {
		t.Helper()
		if got, ok := ErrorMessage([]byte(body)); got != want || ok != wantOK {
			t.Fatalf("ErrorMessage(%q) = %q, %v; want %q, %v", body, got, ok, want, wantOK)
		}
	}
	f(`{"error":"missing or wrong bearer token"}`, "missing or wrong bearer token", true)
	f(`{"error":"a\nb\u0000c\u007fd"}`, "a b c d", true)
	f("{\"error\":\"a\xffb\"}", "a b", true)
	f(`{"error":"x","extra":1}`, "x", true)
	f(`{"error":""}`, "", false)
	f(`{"error":3}`, "", false)
	f(`{}`, "", false)
	f(`<html>bad gateway</html>`, "", false)
	f(``, "", false)
	long := string(must(json.Marshal(ErrorBody{strings.Repeat("é", 200)})))
	f(long, strings.Repeat("é", 148)+"…", true)
}

// FuzzErrorMessage: what ErrorMessage returns is one line of printable
// UTF-8 of at most MaxErrorBytes.
func FuzzErrorMessage(f *testing.F) {
	f.Add([]byte(`{"error":"no"}`))
	f.Add([]byte(`{"error":"a\nb"}`))
	f.Add([]byte("{\"error\":\"\xff\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, ok := ErrorMessage(data)
		if !ok {
			if msg != "" {
				t.Fatalf("%q: not ok with %q", data, msg)
			}
			return
		}
		if msg == "" || len(msg) > MaxErrorBytes || !utf8.ValidString(msg) || strings.ContainsFunc(msg, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Fatalf("%q: message %q", data, msg)
		}
	})
}

func TestParseHeartbeatAnswer(t *testing.T) {
	f := func(status int, body, wantErr string) {
		t.Helper()
		_, _, err := ParseHeartbeatAnswer(status, []byte(body))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("%d %q: err = %v, want one with %q", status, body, err, wantErr)
		}
	}
	f(401, `{"error":"missing or wrong bearer token"}`, "status 401 Unauthorized: missing or wrong bearer token")
	f(502, `<html>bad gateway</html>`, "status 502 Bad Gateway: no error message")
	f(200, `{"slow":"yes"}`, "malformed reply")
	f(200, strings.Repeat(" ", MaxReplyBytes+1), "larger than")
	f(400, strings.Repeat(" ", MaxReplyBytes+1), "status 400: reply larger than")

	reply, ignored, err := ParseHeartbeatAnswer(200, []byte(`{"slow":true,"probe":[{"node":"a:1","blocks":2,"round":3},{"node":"b:1","blocks":99,"round":3}]}`))
	if err != nil || !reply.Slow || len(reply.Probe) != 1 || reply.Probe[0].Node != "a:1" || len(ignored) != 1 {
		t.Fatalf("ParseHeartbeatAnswer = %+v, %v, %v", reply, ignored, err)
	}
}

// FuzzParseHeartbeatAnswer: any answer is a reply or an error of bounded
// size; only a 200 is a reply, and it says what its "slow" member says.
func FuzzParseHeartbeatAnswer(f *testing.F) {
	f.Add(200, []byte(`{"slow":true}`))
	f.Add(200, []byte(`{"slow":false,"extra":1}`))
	f.Add(401, []byte(`{"error":"no"}`))
	f.Add(200, []byte(`[]`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		reply, _, err := ParseHeartbeatAnswer(status, body)
		if err != nil {
			if len(err.Error()) > 600 {
				t.Fatalf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if status != 200 {
			t.Fatalf("status %d accepted", status)
		}
		var v struct{ Slow bool }
		if json.Unmarshal(body, &v) != nil || v.Slow != reply.Slow {
			t.Fatalf("reply %+v from %q", reply, body)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
