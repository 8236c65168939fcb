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
	var props strings.Builder
	for i, r := range refs {
		form, err := url.ParseQuery(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		n := i + 1
		fmt.Fprintf(&props, "form.%d.server=%s\nform.%d.hook=%s\nform.%d.queryId=%s\nform.%d.queryStr=%s\nform.%d.jobName=%s\nform.%d.timestamp=%s\n",
			n, escape(form.Get("server")), n, r.Hook, n, escape(r.QueryID), n, escape(r.QueryStr), n, escape(r.JobName), n, form.Get("timestamp"))
	}
	fmt.Fprintf(&props, "forms=%d\n", len(refs))
	stdout, _ := runDriver(t, classes, props.String())
	got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(got) != len(refs) {
		t.Fatalf("driver printed %d bodies for %d references:\n%s", len(got), len(refs), stdout)
	}
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
	var props strings.Builder
	for i, c := range cases {
		n := i + 1
		fmt.Fprintf(&props, "form.%d.server=h%%3A1\nform.%d.hook=PRE_EXEC_HOOK\nform.%d.queryId=q\nform.%d.queryStr=\nform.%d.jobName=%s\nform.%d.timestamp=1\n",
			n, n, n, n, n, escape(c.jobName), n)
	}
	fmt.Fprintf(&props, "forms=%d\n", len(cases))
	stdout, _ := runDriver(t, classes, props.String())
	got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(got) != len(cases) {
		t.Fatalf("driver printed %d bodies for %d cases:\n%s", len(got), len(cases), stdout)
	}
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
	var props strings.Builder
	for i, c := range cases {
		n := i + 1
		fmt.Fprintf(&props, "form.%d.server=h\nform.%d.hook=PRE_EXEC_HOOK\nform.%d.queryId=q\nform.%d.queryStr=%s\nform.%d.jobName=\nform.%d.timestamp=1\n",
			n, n, n, n, escape(c.queryStr), n, n)
	}
	fmt.Fprintf(&props, "forms=%d\n", len(cases))
	stdout, _ := runDriver(t, classes, props.String())
	got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(got) != len(cases) {
		t.Fatalf("driver printed %d bodies for %d cases", len(got), len(cases))
	}
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
