package hosts

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// MaxFileBytes bounds what ReadFile reads: a million entries fit.
const MaxFileBytes = 64 << 20

// Entry is one entry of a hosts file: a host (a name or an address) and a
// port, 0 when the entry has none and so names every DataNode of the host.
type Entry struct {
	Host string
	Port int
}

// String writes e as it would stand in a file.
func (e Entry) String() string {
	if e.Port == 0 {
		return e.Host
	}
	return net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
}

// Parse reads a hosts file as Hadoop's HostsFileReader.readFileToSet
// does: the words of each line, separated by spaces, tabs and form feeds,
// up to the first word that starts with #. Each word must be a host or
// host:port (an IPv6 address with a port in brackets); the first that is
// not is an error naming its line. Entries come in the file's order, each
// once; host names are lowercased and addresses written in their
// canonical form.
func Parse(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var out []Entry
	seen := map[Entry]bool{}
	for line := 1; sc.Scan(); line++ {
		for _, word := range strings.FieldsFunc(sc.Text(), isSpace) {
			if strings.HasPrefix(word, "#") {
				break
			}
			e, err := parseEntry(word)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			if !seen[e] {
				seen[e] = true
				out = append(out, e)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// isSpace is Hadoop's separator class [ \t\n\f\r].
func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r' }

// parseEntry reads one word: an address, a name, or either with a port.
func parseEntry(word string) (Entry, error) {
	if a, err := netip.ParseAddr(word); err == nil && a.Zone() == "" {
		return Entry{Host: a.Unmap().String()}, nil
	}
	host, port := word, 0
	if b, ok := strings.CutPrefix(word, "["); ok && strings.HasSuffix(b, "]") {
		host = strings.TrimSuffix(b, "]") // an IPv6 address without a port
	} else if h, p, err := net.SplitHostPort(word); err == nil {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 || p[0] == '0' {
			return Entry{}, fmt.Errorf("%q: bad port", clip(word))
		}
		host, port = h, int(n)
	}
	h, ok := canonicalHost(host)
	if !ok {
		return Entry{}, fmt.Errorf("%q is not a host or host:port", clip(word))
	}
	return Entry{Host: h, Port: port}, nil
}

// canonicalHost returns host as a Set keys it: an address in its
// canonical form, a name lowercased. ok is false for a host that is
// neither (a bracket, a colon, a slash, a control character, bytes
// that are not UTF-8).
func canonicalHost(host string) (string, bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return "", false
		}
		return a.Unmap().String(), true
	}
	if host == "" || len(host) > 255 || !utf8.ValidString(host) {
		return "", false
	}
	for _, c := range host {
		if c <= ' ' || c == 0x7f || strings.ContainsRune(`/\"[]:@#`, c) {
			return "", false
		}
	}
	return strings.ToLower(host), true
}

func clip(s string) string {
	if len(s) > 48 {
		return s[:48] + "…"
	}
	return s
}

// Lookup resolves a host name to its addresses, as net.Resolver.LookupHost.
type Lookup func(ctx context.Context, host string) ([]string, error)

// LookupTimeout bounds the lookups of one ReadFile.
const LookupTimeout = 5 * time.Second

// lookupWorkers is how many names ReadFile resolves at once.
const lookupWorkers = 16

// ReadFile reads the hosts file at path (Parse) and returns its Set. With
// lookup, every host name in it is resolved too (all within
// LookupTimeout); names that do not resolve are kept as written and
// returned in unresolved, for the caller to log, as Hadoop warns of them.
// An error names the file.
func ReadFile(ctx context.Context, path string, lookup Lookup) (set *Set, unresolved []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read hosts file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read hosts file %s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, nil, fmt.Errorf("read hosts file %s: larger than %d bytes", path, MaxFileBytes)
	}
	entries, err := Parse(strings.NewReader(string(data)))
	if err != nil {
		return nil, nil, fmt.Errorf("hosts file %s: %w", path, err)
	}
	var addrs map[string][]string
	if lookup != nil {
		addrs, unresolved = resolve(ctx, entries, lookup)
	}
	return New(entries, addrs), unresolved, nil
}

// resolve looks up every host name of entries, a few at once.
func resolve(ctx context.Context, entries []Entry, lookup Lookup) (map[string][]string, []string) {
	var names []string
	seen := map[string]bool{}
	for _, e := range entries {
		if _, err := netip.ParseAddr(e.Host); err != nil && !seen[e.Host] {
			seen[e.Host] = true
			names = append(names, e.Host)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, LookupTimeout)
	defer cancel()
	addrs := make(map[string][]string, len(names))
	var unresolved []string
	var mu sync.Mutex
	work := make(chan string)
	var wg sync.WaitGroup
	for range min(lookupWorkers, len(names)) {
		wg.Go(func() {
			for name := range work {
				got, err := lookup(ctx, name)
				if err == nil && len(got) == 0 {
					err = errors.New("no address")
				}
				mu.Lock()
				if err != nil {
					unresolved = append(unresolved, name)
				} else {
					addrs[name] = got
				}
				mu.Unlock()
			}
		})
	}
	for _, n := range names {
		work <- n
	}
	close(work)
	wg.Wait()
	return addrs, unresolved
}
