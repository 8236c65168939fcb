package tracker

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// The commands of the scripts under testdata/ (script_test.go), with
// key=value arguments. Times are offsets from scriptT0 written as Go
// durations, added or subtracted: t=90m-1ns.
//
//	new validity=D          a new, empty Tracker; output "ok"
//	report t=D from=NODE slow=PEERS
//	                        Report; PEERS is NODE:LATENCY[/MEDIAN/MAD/UPPER],
//	                        comma-separated (NODE is host:port); slow= with
//	                        nothing is an empty report, no slow= a nil one;
//	                        output "entries=N"
//	top t=D n=N             Top: one line per slow node, "slow <- reporter=
//	                        stats ...", stats LATENCY, or
//	                        LATENCY/MEDIAN/MAD/UPPER when any of the last
//	                        three is not 0; "(none)" when empty
//	slow t=D node=NODE      IsSlow: "true" or "false"
//	counts t=D              Counts: "node reporters" lines, or "(none)"
//	expire t=D              Expire: "deleted=N entries=M names=K", K the
//	                        node names still held
//
// After every command the Tracker's internal links are checked.

var scriptT0 = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// scriptState is what the commands of one script share.
type scriptState struct {
	tr *Tracker
}

func TestScripts(t *testing.T) {
	runScripts(t, runCommand)
}

func runCommand(t *testing.T, s *scriptState, line string) string {
	t.Helper()
	fields := strings.Fields(line)
	args := map[string]string{}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		args[k] = v
	}
	arg := func(key string) string {
		v, ok := args[key]
		if !ok {
			t.Fatalf("%s: missing %s=", line, key)
		}
		return v
	}
	at := func() time.Time { return scriptT0.Add(parseOffset(t, arg("t"))) }
	if fields[0] != "new" && s.tr == nil {
		t.Fatalf("%s: no Tracker yet: start the script with new", line)
	}
	var out string
	switch fields[0] {
	case "new":
		s.tr = New(parseOffset(t, arg("validity")))
		out = "ok"
	case "report":
		var peers []reports.SlowPeer
		if list, ok := args["slow"]; ok {
			peers = parsePeers(t, list)
		}
		s.tr.Report(at(), arg("from"), peers)
		out = fmt.Sprintf("entries=%d", s.tr.Entries())
	case "top":
		n, err := strconv.Atoi(arg("n"))
		if err != nil {
			t.Fatalf("%s: n: %v", line, err)
		}
		out = formatTop(s.tr.Top(at(), n))
	case "slow":
		out = strconv.FormatBool(s.tr.IsSlow(at(), arg("node")))
	case "counts":
		var b strings.Builder
		for _, c := range s.tr.Counts(at()) {
			fmt.Fprintf(&b, "%s %d\n", c.Node, c.Reporters)
		}
		out = cmp.Or(b.String(), "(none)")
	case "expire":
		deleted := s.tr.Expire(at())
		s.tr.mu.Lock()
		names := len(s.tr.ids)
		s.tr.mu.Unlock()
		out = fmt.Sprintf("deleted=%d entries=%d names=%d", deleted, s.tr.Entries(), names)
	default:
		t.Fatalf("%s: unknown command %q", line, fields[0])
	}
	checkInvariants(t, s.tr)
	return out
}

// parseOffset reads durations joined by + and -, as "90m-1ns".
func parseOffset(t *testing.T, s string) time.Duration {
	t.Helper()
	var total time.Duration
	sign, start := time.Duration(1), 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && (s[i] != '+' && s[i] != '-' || i == start) {
			continue
		}
		d, err := time.ParseDuration(s[start:i])
		if err != nil {
			t.Fatalf("time %q: %v", s, err)
		}
		total += sign * d
		if i < len(s) && s[i] == '-' {
			sign = -1
		} else {
			sign = 1
		}
		start = i + 1
	}
	return total
}

// parsePeers reads NODE:LATENCY[/MEDIAN/MAD/UPPER],... where NODE is
// host:port.
func parsePeers(t *testing.T, list string) []reports.SlowPeer {
	t.Helper()
	peers := []reports.SlowPeer{}
	if list == "" {
		return peers
	}
	for _, item := range strings.Split(list, ",") {
		i := strings.LastIndexByte(item, ':')
		if i < 0 {
			t.Fatalf("slow peer %q: want host:port:latency", item)
		}
		stats := strings.Split(item[i+1:], "/")
		if len(stats) != 1 && len(stats) != 4 {
			t.Fatalf("slow peer %q: want 1 or 4 statistics", item)
		}
		v := make([]float64, 4)
		for j, st := range stats {
			f, err := strconv.ParseFloat(st, 64)
			if err != nil {
				t.Fatalf("slow peer %q: %v", item, err)
			}
			v[j] = f
		}
		peers = append(peers, reports.SlowPeer{Node: item[:i], LatencyMs: v[0], MedianMs: v[1], MADMs: v[2], UpperLimitMs: v[3]})
	}
	return peers
}

// formatTop writes a Top answer as the top command prints it.
func formatTop(top []reports.SlowNode) string {
	if len(top) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for _, s := range top {
		b.WriteString(s.Node + " <-")
		for _, r := range s.Reporters {
			fmt.Fprintf(&b, " %s=%g", r.Node, r.LatencyMs)
			if r.MedianMs != 0 || r.MADMs != 0 || r.UpperLimitMs != 0 {
				fmt.Fprintf(&b, "/%g/%g/%g", r.MedianMs, r.MADMs, r.UpperLimitMs)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
