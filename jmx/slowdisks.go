package jmx

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// SlowDisk is one entry of a NameNode's SlowDisksReport.
type SlowDisk struct {
	// ID is the disk's SlowDiskID, as the NameNode names it:
	// "ip:port:volume" (SlowDiskTracker keys a DataNode's volume by its
	// transfer address and the volume's base path).
	ID string
	// LatenciesMs are the disk's average latencies in milliseconds by
	// operation (DiskOp: METADATA, READ, WRITE); an operation the NameNode
	// sent no finite figure for is absent.
	LatenciesMs map[string]float64
}

// ParseSlowDisksReport reads the SlowDisksReport string of a NameNode's
// NameNodeStatusBean (SlowDiskTracker.getSlowDiskReportAsJsonString):
// [{"SlowDiskID":"ip:port:volume","Latencies":{"READ":12.3,...}}].
// Members it does not know are ignored; a latency that is null, or that
// Jackson wrote as "NaN", "Infinity" or "-Infinity", is left out. It is an
// error when s is not a JSON array of objects, an entry has no non-empty
// SlowDiskID, Latencies is not an object, or a latency is negative or not
// a number.
func ParseSlowDisksReport(s string) ([]SlowDisk, error) {
	var entries []map[string]json.RawMessage
	if err := decodeOne(s, &entries); err != nil {
		return nil, fmt.Errorf("parse %s: %w", SlowDisksReport, err)
	}
	if entries == nil {
		return nil, fmt.Errorf("parse %s: not a JSON array", SlowDisksReport)
	}
	disks := make([]SlowDisk, 0, len(entries))
	for i, e := range entries {
		d, err := parseSlowDisk(e)
		if err != nil {
			return nil, fmt.Errorf("parse %s: entry %d: %w", SlowDisksReport, i, err)
		}
		disks = append(disks, d)
	}
	return disks, nil
}

func parseSlowDisk(e map[string]json.RawMessage) (SlowDisk, error) {
	var d SlowDisk
	if e == nil {
		return d, fmt.Errorf("not an object")
	}
	raw, ok := e["SlowDiskID"]
	if !ok || json.Unmarshal(raw, &d.ID) != nil || d.ID == "" ||
		strings.ContainsFunc(d.ID, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return d, fmt.Errorf("no SlowDiskID, or not a non-empty string")
	}
	d.LatenciesMs = map[string]float64{}
	lat, ok := e["Latencies"]
	if !ok {
		return d, nil
	}
	var ops map[string]json.RawMessage
	if err := decodeOne(string(lat), &ops); err != nil {
		return d, fmt.Errorf("%s: Latencies is not an object", d.ID)
	}
	for op, raw := range ops {
		if op == "" || strings.ContainsFunc(op, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return d, fmt.Errorf("%s: operation %s", d.ID, strconv.Quote(op))
		}
		v, err := figure(raw)
		if err != nil {
			return d, fmt.Errorf("%s: %s: %w", d.ID, op, err)
		}
		if v != nil {
			d.LatenciesMs[op] = *v
		}
	}
	return d, nil
}
