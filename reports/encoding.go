package reports

import (
	"compress/gzip"
	"net/http"
	"strings"
)

// Heartbeat bodies may travel compressed, as HTTP's client-initiated
// content coding (RFC 7694) has it: a service that inflates them says so
// on every answer to a heartbeat, whatever its status, with
// "Accept-Encoding: gzip" (RFC 7694 section 3), and an agent compresses a
// body larger than GzipMinBytes with gzip ("Content-Encoding: gzip") only
// to a service whose latest answer said so. A service that does not say
// it (one older than the coding) never gets a compressed body; a
// compressed body that gets an answer without it (the service was
// replaced in between by one that cannot read it) is sent again plain at
// once. The service applies its body limit to the inflated size too, and
// answers a coding it does not know with 415.
const (
	// GzipMinBytes is the largest heartbeat body sent plain to a service
	// that takes gzip: most heartbeats of recentLatencies alone (50 to 79
	// peers, 0.7 to 1 KB) go plain, as inflating costs the service a few
	// microseconds a heartbeat; one that carries a report's peerLatencies
	// (5 to 6 KB for 64 peers) shrinks to under a quarter.
	GzipMinBytes = 1024
	// GzipLevel is the agents' compression level: the fastest, which
	// leaves heartbeat JSON within a few percent of the best.
	GzipLevel = gzip.BestSpeed
)

// AcceptsGzip reports whether an answer's header says that its sender
// takes request bodies compressed with gzip: an Accept-Encoding that
// lists gzip (or x-gzip) with a weight above 0.
func AcceptsGzip(h http.Header) bool {
	for _, v := range h.Values("Accept-Encoding") {
		for item := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(item, ";")
			coding = strings.TrimSpace(coding)
			if !strings.EqualFold(coding, "gzip") && !strings.EqualFold(coding, "x-gzip") {
				continue
			}
			if !zeroWeight(params) {
				return true
			}
		}
	}
	return false
}

// zeroWeight reports whether the parameters of an Accept-Encoding item
// give it the weight 0 ("q=0", "q=0.0", ...).
func zeroWeight(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		name, value, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "q") {
			continue
		}
		value = strings.TrimSpace(value)
		return strings.TrimRight(strings.TrimPrefix(value, "0"), "0.") == "" && strings.HasPrefix(value, "0")
	}
	return false
}
