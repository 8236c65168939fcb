package reports

import (
	"net/http"
	"testing"
)

func TestAcceptsGzip(t *testing.T) {
	f := func(want bool, values ...string) {
		t.Helper()
		h := http.Header{}
		for _, v := range values {
			h.Add("Accept-Encoding", v)
		}
		if got := AcceptsGzip(h); got != want {
			t.Errorf("AcceptsGzip(%q) = %v, want %v", values, got, want)
		}
	}
	f(false)
	f(false, "")
	f(false, "identity")
	f(false, "br, deflate")
	f(false, "gzipped")
	f(false, "gzip;q=0")
	f(false, "gzip; q=0.000")
	f(false, "GZIP;Q=0.0, identity")
	f(true, "gzip")
	f(true, "GZip")
	f(true, "x-gzip")
	f(true, " identity , gzip ")
	f(true, "gzip;q=0.5")
	f(true, "gzip;q=1")
	f(true, "br", "gzip")
	f(true, "gzip;level=1")
}
