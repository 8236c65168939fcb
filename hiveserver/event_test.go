package hiveserver_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/hiveserver/storetest"
)

// Reference: java.net.URLEncoder.encode(s, UTF_8). The bodies were made
// by it, twice for queryStr, as the hook does; the statements must come out byte for byte: Chinese, '+',
// '%', '&', a literal "%2B", newlines, a 4-byte emoji.
func TestParseEventJavaHookBodies(t *testing.T) {
	for i, c := range storetest.HookCases(t) {
		form, err := url.ParseQuery(c.Body)
		if err != nil {
			t.Fatalf("case %d: body: %v", i, err)
		}
		e, err := hiveserver.ParseEvent(form)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		want := hiveserver.Event{Server: "hs1.example.com:10000", Hook: c.Hook, QueryID: c.QueryID, QueryStr: c.QueryStr,
			JobName: c.JobName, TimeMs: 1704110400000 + int64(i)}
		if e != want {
			t.Errorf("case %d:\n got %#v\nwant %#v", i, e, want)
		}
	}
}

func TestParseEvent(t *testing.T) {
	good := func() url.Values {
		return url.Values{"server": {"hs1:10000"}, "hook": {"PRE_EXEC_HOOK"}, "queryId": {"q1"},
			"queryStr": {"SELECT+1"}, "jobName": {"daily"}, "timestamp": {"1704110400000"}}
	}
	f := func(name string, edit func(url.Values), wantErr string) {
		t.Helper()
		form := good()
		edit(form)
		e, err := hiveserver.ParseEvent(form)
		if wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			return
		}
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: got %+v, %v; want error with %q", name, e, err, wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", name, err)
		}
	}
	f("good", func(url.Values) {}, "")
	f("extra fields ignored", func(v url.Values) { v.Set("user", "bob") }, "")
	f("empty jobName", func(v url.Values) { v.Set("jobName", "") }, "")
	f("empty queryStr", func(v url.Values) { v.Set("queryStr", "") }, "")
	f("POST_EXEC_HOOK", func(v url.Values) { v.Set("hook", "POST_EXEC_HOOK") }, "")
	f("ON_FAILURE_HOOK", func(v url.Values) { v.Set("hook", "ON_FAILURE_HOOK") }, "")
	f("IPv6 server", func(v url.Values) { v.Set("server", "[::1]:10000") }, "")
	for _, field := range []string{"server", "hook", "queryId", "queryStr", "jobName", "timestamp"} {
		f("missing "+field, func(v url.Values) { v.Del(field) }, "missing field "+field)
		f("twice "+field, func(v url.Values) { v.Add(field, v.Get(field)) }, "field "+field+" given 2 times")
	}
	f("empty server", func(v url.Values) { v.Set("server", "") }, "field server")
	f("server without port", func(v url.Values) { v.Set("server", "hs1") }, "field server")
	f("server port 0", func(v url.Values) { v.Set("server", "hs1:0") }, "field server")
	// Reference: Hive's HookContext.HookType names the three hooks.
	f("unknown hook", func(v url.Values) { v.Set("hook", "QUERY_END") }, "field hook")
	f("hook lower case", func(v url.Values) { v.Set("hook", "pre_exec_hook") }, "field hook")
	f("queryId with a trailing blank", func(v url.Values) { v.Set("queryId", "q1 ") }, "field queryId: leading or trailing blanks")
	f("jobName is trimmed", func(v url.Values) { v.Set("jobName", " daily\t") }, "")
	f("empty queryId", func(v url.Values) { v.Set("queryId", "") }, "field queryId: empty")
	f("queryId with newline", func(v url.Values) { v.Set("queryId", "q\n1") }, "field queryId: control character")
	f("queryId too long", func(v url.Values) { v.Set("queryId", strings.Repeat("q", hiveserver.MaxQueryIDBytes+1)) }, "field queryId")
	f("jobName too long", func(v url.Values) { v.Set("jobName", strings.Repeat("名", 86)) }, "field jobName")
	f("jobName bad UTF-8", func(v url.Values) { v.Set("jobName", "\xff") }, "field jobName: not valid UTF-8")
	f("queryStr bad escape", func(v url.Values) { v.Set("queryStr", "100%") }, "field queryStr: not URL-encoded")
	f("queryStr bad UTF-8 once decoded", func(v url.Values) { v.Set("queryStr", "%FF") }, "field queryStr: not valid UTF-8")
	f("queryStr NUL", func(v url.Values) { v.Set("queryStr", "a%00b") }, "field queryStr: control character")
	f("queryStr too long", func(v url.Values) { v.Set("queryStr", strings.Repeat("a", hiveserver.MaxQueryStrBytes+1)) }, "field queryStr")
	f("timestamp not a number", func(v url.Values) { v.Set("timestamp", "yesterday") }, "field timestamp")
	f("timestamp float", func(v url.Values) { v.Set("timestamp", "1704110400000.5") }, "field timestamp")
	f("timestamp empty", func(v url.Values) { v.Set("timestamp", "") }, "field timestamp")
	f("timestamp plus", func(v url.Values) { v.Set("timestamp", "+1704110400000") }, "field timestamp")
	f("timestamp zero", func(v url.Values) { v.Set("timestamp", "0") }, "field timestamp")
	f("timestamp negative", func(v url.Values) { v.Set("timestamp", "-5") }, "field timestamp")
	f("timestamp overflow", func(v url.Values) { v.Set("timestamp", "99999999999999999999") }, "field timestamp")
	f("timestamp after 9999", func(v url.Values) { v.Set("timestamp", "253402300800000") }, "field timestamp")
	f("long junk is clipped", func(v url.Values) { v.Set("hook", strings.Repeat("x", 10000)) }, "…")
}

// FuzzParseEvent: any form body gives an event or an error, never a
// panic; an event it gives is valid and survives Form and ParseEvent.
func FuzzParseEvent(f *testing.F) {
	for _, c := range storetest.HookCases(f) {
		f.Add(c.Body)
	}
	f.Add("server=h:1&hook=PRE_EXEC_HOOK&queryId=q&queryStr=%25&jobName=&timestamp=1")
	f.Add("server=h:1&hook=PRE_EXEC_HOOK&queryId=q&queryStr=%&jobName=&timestamp=1")
	f.Add("server=[::1]:1&hook=POST_EXEC_HOOK&queryId=%00&queryStr=&jobName=&timestamp=1e3")
	f.Fuzz(func(t *testing.T, body string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		e, err := hiveserver.ParseEvent(form)
		if err != nil {
			if e != (hiveserver.Event{}) {
				t.Fatalf("error %v with a non-zero event %+v", err, e)
			}
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("ParseEvent gave an invalid event %+v: %v", e, err)
		}
		back, err := hiveserver.ParseEvent(e.Form())
		if err != nil || back != e {
			t.Fatalf("round trip of %#v: got %#v, %v", e, back, err)
		}
	})
}

func TestEventFormRoundTrip(t *testing.T) {
	for _, c := range storetest.HookCases(t) {
		e := hiveserver.Event{Server: "hs1:10000", Hook: c.Hook, QueryID: c.QueryID, QueryStr: c.QueryStr, JobName: c.JobName, TimeMs: 1}
		back, err := hiveserver.ParseEvent(must(url.ParseQuery(e.Form().Encode())))
		if err != nil || back != e {
			t.Errorf("round trip of %#v: got %#v, %v", e, back, err)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// BenchmarkParseEvent measures the decoding of a hook's form, queryStr in
// Chinese decoded twice.
func BenchmarkParseEvent(b *testing.B) {
	body := storetest.HookCases(b)[0].Body
	b.ReportAllocs()
	for b.Loop() {
		form, err := url.ParseQuery(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := hiveserver.ParseEvent(form); err != nil {
			b.Fatal(err)
		}
	}
}
