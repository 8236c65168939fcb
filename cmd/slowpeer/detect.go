package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/slowpeer/slowpeer/outlier"
	"github.com/slowpeer/slowpeer/reports"
)

// maxDetectInput bounds what detect reads: 64 MiB holds well over a million
// peers, far beyond any cluster.
const maxDetectInput = 64 << 20

// detectOutput is what detect prints. The statistics are pointers so that a
// skipped detection prints them as null.
type detectOutput struct {
	Skipped           bool               `json:"skipped"`
	MedianLatency     *float64           `json:"medianLatency"`
	MADLatency        *float64           `json:"madLatency"`
	UpperLimitLatency *float64           `json:"upperLimitLatency"`
	Outliers          map[string]float64 `json:"outliers"`
}

func runDetect(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("detect", "[-min-resources N] [-low-threshold-ms X] [FILE|-]", stderr)
	minResources := fs.Int("min-resources", outlier.DefaultMinResources,
		"fewest peers to run the test on (dfs.datanode.min.outlier.detection.nodes)")
	lowMs := fs.Float64("low-threshold-ms", float64(outlier.DefaultLowThreshold)/float64(time.Millisecond),
		"latency in ms below which no peer is an outlier (dfs.datanode.slowpeer.low.threshold.ms)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *minResources < 1 {
		return usageError{fmt.Errorf("-min-resources %d: must be at least 1", *minResources)}
	}
	if err := reports.ValidateLatency(*lowMs); err != nil {
		return usageError{fmt.Errorf("-low-threshold-ms: %w", err)}
	}
	if fs.NArg() > 1 {
		return usageError{errors.New("at most one input file")}
	}
	in, name := stdin, "standard input"
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		name = fs.Arg(0)
		f, err := os.Open(name)
		if err != nil {
			return inputError{fmt.Errorf("read input: %w", err)}
		}
		defer f.Close()
		in = f
	}
	latencies, err := decodeLatencies(in)
	if err != nil {
		return inputError{fmt.Errorf("read %s: %w", name, err)}
	}

	d := outlier.New(*minResources, time.Duration(*lowMs*float64(time.Millisecond)))
	res := d.DetectMap(latencies)
	out := detectOutput{Skipped: res.Skipped, Outliers: make(map[string]float64, len(res.Outliers))}
	if !res.Skipped {
		out.MedianLatency, out.MADLatency, out.UpperLimitLatency = &res.MedianMs, &res.MADMs, &res.UpperLimitMs
	}
	for _, o := range res.Outliers {
		out.Outliers[o.Name] = o.LatencyMs
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// decodeLatencies reads one JSON object of peer name → latency in ms: every
// name non-empty and unique, every value a finite number ≥ 0, nothing after
// the object but white space.
func decodeLatencies(r io.Reader) (map[string]float64, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxDetectInput+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDetectInput {
		return nil, fmt.Errorf("input is larger than %d bytes", maxDetectInput)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, notJSON(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("want a JSON object of peer to latency in ms")
	}
	out := make(map[string]float64)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notJSON(err)
		}
		peer := tok.(string) // object keys are always strings
		if peer == "" {
			return nil, errors.New("empty peer name")
		}
		if _, dup := out[peer]; dup {
			return nil, fmt.Errorf("peer %q named twice", peer)
		}
		tok, err = dec.Token()
		if err != nil {
			return nil, notJSON(err)
		}
		num, ok := tok.(json.Number)
		if !ok {
			return nil, fmt.Errorf("peer %q: latency is not a number", peer)
		}
		v, err := num.Float64()
		if err != nil || math.IsInf(v, 0) {
			return nil, fmt.Errorf("peer %q: latency %s is not a finite number", peer, num)
		}
		if err := reports.ValidateLatency(v); err != nil {
			return nil, fmt.Errorf("peer %q: %w", peer, err)
		}
		out[peer] = v + 0 // +0 turns -0 into 0
	}
	if _, err := dec.Token(); err != nil {
		return nil, notJSON(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return out, nil
}

// notJSON words a JSON syntax error for the one-line message; the decoder
// says only "EOF" when the input stops in the middle.
func notJSON(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("not JSON: the input ends before the object does")
	}
	return fmt.Errorf("not JSON: %w", err)
}
