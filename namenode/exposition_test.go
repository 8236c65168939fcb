package namenode

import (
	"bufio"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	metricNameRe = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelNameRe  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// parseExposition is a small checker of the Prometheus text format (0.0.4)
// as Prometheus reads it: # HELP and # TYPE once per family and before its
// samples (a sample without them is refused), each family's samples together, well-formed names, labels and
// values, histograms with increasing buckets ending in +Inf = _count. It
// returns every sample by its series text, name{labels}.
func parseExposition(text string) (map[string]float64, error) {
	samples := map[string]float64{}
	types := map[string]string{}
	helped := map[string]bool{}
	done := map[string]bool{} // families whose run of samples has ended
	current := ""
	type bucketRun struct {
		last  float64
		count float64
		inf   bool
	}
	buckets := map[string]*bucketRun{} // histogram series without le -> run

	family := func(name string) string {
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && types[base] == "histogram" {
				return base
			}
		}
		return name
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fail := func(format string, args ...any) error {
			return fmt.Errorf("line %d %q: %s", n, line, fmt.Sprintf(format, args...))
		}
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			kind, rest, _ := strings.Cut(rest, " ")
			name, arg, _ := strings.Cut(rest, " ")
			switch kind {
			case "HELP":
				if helped[name] {
					return nil, fail("second HELP for %s", name)
				}
				helped[name] = true
			case "TYPE":
				if _, ok := types[name]; ok {
					return nil, fail("second TYPE for %s", name)
				}
				switch arg {
				case "counter", "gauge", "histogram", "summary", "untyped":
				default:
					return nil, fail("bad type %q", arg)
				}
				types[name] = arg
			default:
				continue // a comment
			}
			if !metricNameRe.MatchString(name) {
				return nil, fail("bad metric name")
			}
			continue
		}
		// name{labels} value
		end := strings.IndexAny(line, "{ ")
		if end <= 0 {
			return nil, fail("no metric name")
		}
		name := line[:end]
		if !metricNameRe.MatchString(name) {
			return nil, fail("bad metric name")
		}
		rest := line[end:]
		labels := map[string]string{}
		var labelText string
		if rest[0] == '{' {
			close := strings.LastIndexByte(rest, '}')
			if close < 0 {
				return nil, fail("unclosed labels")
			}
			labelText = rest[:close+1]
			if err := parseLabels(rest[1:close], labels); err != nil {
				return nil, fail("%v", err)
			}
			rest = rest[close+1:]
		}
		valueText, ok := strings.CutPrefix(rest, " ")
		if !ok || strings.Contains(valueText, " ") {
			return nil, fail("want one value without a timestamp")
		}
		v, err := strconv.ParseFloat(valueText, 64)
		if err != nil {
			return nil, fail("bad value: %v", err)
		}
		fam := family(name)
		if fam != current {
			if done[fam] {
				return nil, fail("samples of %s are not together", fam)
			}
			if current != "" {
				done[current] = true
			}
			current = fam
		}
		if _, ok := types[fam]; !ok {
			return nil, fail("no TYPE before the samples of %s", fam)
		}
		if !helped[fam] {
			return nil, fail("no HELP for %s", fam)
		}
		series := name + labelText
		if _, dup := samples[series]; dup {
			return nil, fail("series given twice")
		}
		samples[series] = v
		if types[fam] == "histogram" {
			le, hasLE := labels["le"]
			delete(labels, "le")
			key := fam + fmt.Sprint(labels)
			run := buckets[key]
			if run == nil {
				run = &bucketRun{last: math.Inf(-1)}
				buckets[key] = run
			}
			switch {
			case strings.HasSuffix(name, "_bucket"):
				if !hasLE {
					return nil, fail("bucket without le")
				}
				bound, err := strconv.ParseFloat(le, 64)
				if err != nil || run.inf || v < run.count && run.last != math.Inf(-1) {
					return nil, fail("bad bucket")
				}
				run.count, run.last = v, bound
				run.inf = math.IsInf(bound, 1)
			case strings.HasSuffix(name, "_count"):
				if !run.inf || run.count != v {
					return nil, fail("_count %v does not match the +Inf bucket %v", v, run.count)
				}
			}
		}
	}
	return samples, sc.Err()
}

func parseLabels(s string, into map[string]string) error {
	for s != "" {
		name, rest, ok := strings.Cut(s, "=")
		if !ok || !labelNameRe.MatchString(name) {
			return fmt.Errorf("bad label name in %q", s)
		}
		if rest == "" || rest[0] != '"' {
			return fmt.Errorf("label %s: value not quoted", name)
		}
		var val strings.Builder
		i := 1
		for ; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' {
				i++
				if i == len(rest) {
					return fmt.Errorf("label %s: bad escape", name)
				}
				switch rest[i] {
				case '\\', '"':
					val.WriteByte(rest[i])
				case 'n':
					val.WriteByte('\n')
				default:
					return fmt.Errorf("label %s: bad escape", name)
				}
				continue
			}
			val.WriteByte(rest[i])
		}
		if i == len(rest) {
			return fmt.Errorf("label %s: unterminated value", name)
		}
		if _, dup := into[name]; dup {
			return fmt.Errorf("label %s given twice", name)
		}
		into[name] = val.String()
		s = strings.TrimPrefix(rest[i+1:], ",")
	}
	return nil
}

func TestParseExpositionRefuses(t *testing.T) {
	f := func(text, inErr string) {
		t.Helper()
		_, err := parseExposition(text)
		if err == nil || !strings.Contains(err.Error(), inErr) {
			t.Fatalf("parse %q: %v, want an error with %q", text, err, inErr)
		}
	}
	const meta = "# HELP a_total x\n# TYPE a_total counter\n"
	f("a_total 1\n", "no TYPE")
	f("# TYPE a_total counter\na_total 1\n", "no HELP")
	f(meta+"a_total one\n", "bad value")
	f(meta+"a_total{x=\"1} 1\n", "unterminated")
	f(meta+"a_total{1x=\"1\"} 1\n", "bad label name")
	f(meta+"a_total 1 123\n", "without a timestamp")
	f(meta+"a_total 1\na_total 2\n", "twice")
	f(meta+"# HELP b x\n# TYPE b gauge\na_total{k=\"1\"} 1\nb 1\na_total{k=\"2\"} 1\n", "not together")
	f("# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n", "bad bucket")
	f("# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n", "does not match")
}
