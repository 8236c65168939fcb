package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCmd runs the binary's entry point in-process.
func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestDetect(t *testing.T) {
	f := func(input string, args []string, want string) {
		t.Helper()
		code, out, errOut := runCmd(t, input, append([]string{"detect"}, args...)...)
		if code != 0 {
			t.Fatalf("detect %v < %s: exit %d, stderr %s", args, input, code, errOut)
		}
		if strings.TrimSpace(out) != want {
			t.Fatalf("detect %v < %s:\n got %s\nwant %s", args, input, out, want)
		}
	}
	ten := `{"a:1":1,"b:1":1,"c:1":1,"d:1":1,"e:1":1,"f:1":1,"g:1":1,"h:1":1,"i:1":1,"j:1":20}`
	// median 1, MAD 0, upper limit max(5, 3, 1) = 5: j is an outlier.
	f(ten, nil, `{"skipped":false,"medianLatency":1,"madLatency":0,"upperLimitLatency":5,"outliers":{"j:1":20}}`)
	// With a low threshold of 25 ms nothing is.
	f(ten, []string{"-low-threshold-ms", "25"}, `{"skipped":false,"medianLatency":1,"madLatency":0,"upperLimitLatency":25,"outliers":{}}`)
	// Fewer peers than -min-resources: skipped, statistics null.
	f(`{"a:1":1,"b:1":100}`, nil, `{"skipped":true,"medianLatency":null,"madLatency":null,"upperLimitLatency":null,"outliers":{}}`)
	f(`{"a:1":1,"b:1":100,"c":1}`, []string{"-min-resources", "3"}, `{"skipped":false,"medianLatency":1,"madLatency":0,"upperLimitLatency":5,"outliers":{"b:1":100}}`)
	f(`{}`, []string{"-min-resources", "1"}, `{"skipped":true,"medianLatency":null,"madLatency":null,"upperLimitLatency":null,"outliers":{}}`)
	f(" {\"a\": -0} \n", []string{"-min-resources", "1"}, `{"skipped":false,"medianLatency":0,"madLatency":0,"upperLimitLatency":5,"outliers":{}}`)
}

func TestDetectFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(path, []byte(`{"a":1,"b":2,"c":90}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "ignored", "detect", "-min-resources", "3", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got detectOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Skipped || len(got.Outliers) != 1 || got.Outliers["c"] != 90 {
		t.Fatalf("got %+v", got)
	}
	code, out, errOut = runCmd(t, `{"a":1}`, "detect", "-min-resources", "1", "-")
	if code != 0 || !strings.Contains(out, `"skipped":false`) {
		t.Fatalf("stdin as -: exit %d, %s %s", code, out, errOut)
	}
}

func TestDetectBadInput(t *testing.T) {
	f := func(input string, args []string, wantErr string) {
		t.Helper()
		code, out, errOut := runCmd(t, input, append([]string{"detect"}, args...)...)
		if code != 2 {
			t.Fatalf("detect %v < %q: exit %d, want 2", args, input, code)
		}
		if out != "" {
			t.Fatalf("detect %v < %q: printed %q on stdout", args, input, out)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, wantErr) {
			t.Fatalf("detect %v < %q: stderr %q, want one line with %q", args, input, errOut, wantErr)
		}
	}
	f(``, nil, "not JSON")
	f(`{`, nil, "not JSON")
	f(`nope`, nil, "not JSON")
	f(`[1,2]`, nil, "want a JSON object")
	f(`"a"`, nil, "want a JSON object")
	f(`{"a":1}{"b":2}`, nil, "data after the JSON object")
	f(`{"a":1} x`, nil, "data after the JSON object")
	f(`{"":1}`, nil, "empty peer name")
	f(`{"a":1,"a":2}`, nil, `peer "a" named twice`)
	f(`{"a":"1"}`, nil, "not a number")
	f(`{"a":null}`, nil, "not a number")
	f(`{"a":[1]}`, nil, "not a number")
	f(`{"a":{"b":1}}`, nil, "not a number")
	f(`{"a":true}`, nil, "not a number")
	f(`{"a":-1}`, nil, "negative")
	f(`{"a":1e999}`, nil, "not a finite number")
	f(`{"a":NaN}`, nil, "not JSON")
	f(`{}`, []string{"/nonexistent/file"}, "no such file")

	// A bad command line: the one line, and where the flags are.
	usage := func(args []string, wantErr string) {
		t.Helper()
		code, out, errOut := runCmd(t, "{}", append([]string{"detect"}, args...)...)
		want := "\nRun \"slowpeer detect -h\" for its flags.\n"
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 2 || !strings.Contains(errOut, wantErr) || !strings.HasSuffix(errOut, want) {
			t.Fatalf("detect %v: exit %d, stdout %q, stderr %q; want 2, nothing, %q and the pointer to -h", args, code, out, errOut, wantErr)
		}
	}
	usage([]string{"a", "b"}, "at most one input file")
	usage([]string{"-min-resources", "0"}, "at least 1")
	usage([]string{"-low-threshold-ms", "-1"}, "negative")
	usage([]string{"-low-threshold-ms", "NaN"}, "not a finite number")
	usage([]string{"-nope"}, "flag provided but not defined: -nope")
}

func FuzzDecodeLatencies(f *testing.F) {
	f.Add(`{"a:1":1.5,"b:1":0}`)
	f.Add(`{"a":1,"a":2}`)
	f.Add(`{"a":1e999}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, input string) {
		got, err := decodeLatencies(strings.NewReader(input))
		if err != nil {
			if got != nil {
				t.Fatalf("an error with a result: %v", got)
			}
			return
		}
		// What decodes is an object that encoding/json reads the same way.
		var ref map[string]float64
		if err := json.Unmarshal([]byte(input), &ref); err != nil {
			t.Fatalf("decodeLatencies accepted %q, encoding/json refuses it: %v", input, err)
		}
		if len(ref) != len(got) {
			t.Fatalf("%q: %d peers, encoding/json sees %d", input, len(got), len(ref))
		}
		for k, v := range got {
			if k == "" || v < 0 || ref[k] != v {
				t.Fatalf("%q: peer %q = %v, encoding/json says %v", input, k, v, ref[k])
			}
		}
	})
}
