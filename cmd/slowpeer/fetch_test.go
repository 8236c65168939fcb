package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// fetch: what each answer of a service becomes, and that every error names
// the URL it read.
func TestFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, _ := strconv.Atoi(r.URL.Query().Get("status"))
		w.WriteHeader(status)
		w.Write([]byte(r.URL.Query().Get("body")))
	}))
	defer srv.Close()
	parse := func(b []byte) ([]int, error) { return decodeArray[int](b, "a list of numbers") }
	f := func(status int, body string, want string, notServed bool) {
		t.Helper()
		target := srv.URL + "/x?status=" + strconv.Itoa(status) + "&body=" + url.QueryEscape(body)
		v, err := fetch(context.Background(), plainClient, target, 64, parse)
		if want == "" {
			if err != nil || len(v) != 1 {
				t.Fatalf("%d %s: %v, %v", status, body, v, err)
			}
			return
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), srv.URL+"/x") ||
			errors.Is(err, errNotServed) != notServed || errors.Is(err, errNoAnswer) {
			t.Fatalf("%d %s: err = %v; want one naming the URL with %q (not served: %v)", status, body, err, want, notServed)
		}
		_, served, err := fetchOptional(context.Background(), plainClient, target, 64, parse)
		if served || (err == nil) != notServed {
			t.Fatalf("%d %s: fetchOptional served %v, %v", status, body, served, err)
		}
	}
	f(200, "[1]", "", false)
	f(200, "[1,", "bad answer from", false)
	f(200, "null", "not a list of numbers: want a JSON array", false)
	f(200, strings.Repeat("1", 65), "answered more than 64 bytes", false)
	f(404, "gone", `answered 404 Not Found: "gone"`, true)
	f(400, `{"error":"top:\nbad"}`, "answered 400 Bad Request: top: bad", false)
	f(502, "<html>", `answered 502 Bad Gateway: "<html>"`, false)

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	if _, err := fetch(context.Background(), plainClient, closed.URL, 64, parse); !errors.Is(err, errNoAnswer) || !strings.Contains(err.Error(), closed.URL) {
		t.Fatalf("closed port: %v, want errNoAnswer naming the URL", err)
	}
}

// decodeEntries: every entry checked, the first refused one named by index.
func TestDecodeEntries(t *testing.T) {
	positive := func(v int) error {
		if v <= 0 {
			return errors.New("not positive")
		}
		return nil
	}
	if got, err := decodeEntries([]byte(`[1,2]`), "a list", positive); err != nil || len(got) != 2 {
		t.Fatalf("[1,2]: %v, %v", got, err)
	}
	if _, err := decodeEntries([]byte(`[1,0,-1]`), "a list", positive); err == nil || err.Error() != "entry 1: not positive" {
		t.Fatalf("[1,0,-1]: %v, want entry 1: not positive", err)
	}
	if _, err := decodeEntries([]byte(`{}`), "a list", positive); err == nil || !strings.HasPrefix(err.Error(), "not a list: ") {
		t.Fatalf("{}: %v", err)
	}
}
