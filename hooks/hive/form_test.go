package hive

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/hiveserver/storetest"
)

// TestHookFormMatchesReference checks that the hook writes, byte for byte,
// the bodies of hiveserver/testdata/hook_bodies.jsonl, the reference the
// service's own tests decode (made by hiveserver/testdata/HookBody.java
// with java.net.URLEncoder, as a hook does).
func TestHookFormMatchesReference(t *testing.T) {
	classes := compileHook(t)
	refs := storetest.HookCases(t)
	var forms []driverForm
	for _, r := range refs {
		form, err := url.ParseQuery(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		forms = append(forms, driverForm{form.Get("server"), string(r.Hook), r.QueryID, r.QueryStr, r.JobName, form.Get("timestamp")})
	}
	got := formBodies(t, classes, forms)
	for i, r := range refs {
		if got[i] != r.Body {
			t.Errorf("%s %s:\n got %s\nwant %s", r.Hook, r.QueryID, got[i], r.Body)
		}
	}
}

// TestHookFormCleansJobName checks what the hook does to a job name the
// service would refuse: control characters become blanks, surrounding
// blanks go, and more than 255 bytes are cut at a whole character.
// (TestHookFormCutsQueryStr checks the same cut on a statement.)
func TestHookFormCleansJobName(t *testing.T) {
	classes := compileHook(t)
	long := strings.Repeat("é", 200) // 400 bytes
	cases := []struct{ jobName, want string }{
		{"  amp\tjob\n", "amp job"},
		{"a\x00b\x7fc", "a b c"},
		{long, strings.Repeat("é", 127)},
		{"x" + long, "x" + strings.Repeat("é", 127)},
		{"", ""},
	}
	var forms []driverForm
	for _, c := range cases {
		forms = append(forms, driverForm{"h:1", "PRE_EXEC_HOOK", "q", "", c.jobName, "1"})
	}
	got := formBodies(t, classes, forms)
	for i, c := range cases {
		form, err := url.ParseQuery(got[i])
		if err != nil {
			t.Fatalf("%q: body %q: %v", c.jobName, got[i], err)
		}
		if job := form.Get("jobName"); job != c.want {
			t.Errorf("jobName %q sent as %q, want %q", c.jobName, job, c.want)
		}
	}
}

// TestHookFormCutsQueryStr checks that a statement over the service's
// 4 MiB is cut to at most 4 MiB of whole characters, so the service takes
// it rather than refusing the event, and that NUL, which the service
// refuses, becomes a blank.
func TestHookFormCutsQueryStr(t *testing.T) {
	classes := compileHook(t)
	const limit = 4 << 20
	cases := []struct{ queryStr, want string }{
		{strings.Repeat("a", limit), strings.Repeat("a", limit)},
		{strings.Repeat("a", limit+1), strings.Repeat("a", limit)},
		// A 4-byte character across the limit goes whole.
		{strings.Repeat("a", limit-2) + "😀b", strings.Repeat("a", limit-2)},
		{"SELECT '\x00'", "SELECT ' '"},
	}
	var forms []driverForm
	for _, c := range cases {
		forms = append(forms, driverForm{"h", "PRE_EXEC_HOOK", "q", c.queryStr, "", "1"})
	}
	got := formBodies(t, classes, forms)
	for i, c := range cases {
		form, err := url.ParseQuery(got[i])
		if err != nil {
			t.Fatal(err)
		}
		q, err := url.QueryUnescape(form.Get("queryStr"))
		if err != nil {
			t.Fatal(err)
		}
		if q != c.want {
			t.Errorf("case %d: queryStr of %d bytes sent as %d bytes, want %d", i, len(c.queryStr), len(q), len(c.want))
		}
	}
}

// driverForm is the fields of one form for the HookDriver to build, as the
// hook builds one from a statement (values before any encoding).
type driverForm struct{ server, hook, queryID, queryStr, jobName, timestamp string }

// formBodies has the HookDriver build forms and returns the body it
// printed for each.
func formBodies(t *testing.T, classes string, forms []driverForm) []string {
	t.Helper()
	var props strings.Builder
	for i, f := range forms {
		for _, field := range [][2]string{{"server", f.server}, {"hook", f.hook}, {"queryId", f.queryID},
			{"queryStr", f.queryStr}, {"jobName", f.jobName}, {"timestamp", f.timestamp}} {
			fmt.Fprintf(&props, "form.%d.%s=%s\n", i+1, field[0], escape(field[1]))
		}
	}
	fmt.Fprintf(&props, "forms=%d\n", len(forms))
	stdout, _ := runDriver(t, classes, props.String())
	bodies := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(bodies) != len(forms) {
		t.Fatalf("driver printed %d bodies for %d forms:\n%.4000s", len(bodies), len(forms), stdout)
	}
	return bodies
}
