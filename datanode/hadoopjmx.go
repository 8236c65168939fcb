package datanode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/outlier"
)

// maxJMXBytes bounds what the agent reads of a /jmx answer.
const maxJMXBytes = 16 << 20

// staleScrapes is how many scrape intervals a scraped document stays the
// source of reports: after that long without a good read the agent sends
// no report rather than an old one.
const staleScrapes = 3

// HadoopJMX is the latency source of an agent beside a Hadoop DataNode: it
// reads the DataNode's /jmx, takes the per-peer averages of
// SendPacketDownstreamAvgInfo (bean Hadoop:service=DataNode,name=DataNodeInfo)
// and runs the outlier test over them. The averages are already Hadoop's
// rolling averages (MutableRollingAverages), so they go straight to the
// detector, not through a second rolling window. Hadoop's document gives
// no sample counts, so dfs.datanode.peer.metrics.min.outlier.detection.samples
// cannot be applied: every peer listed takes part.
//
// A document that cannot be read or is malformed is an error, logged and
// counted, never read as zero latencies; the last good document stays in
// use until it is staleScrapes intervals old.
//
// HadoopJMX is safe for concurrent use. Construct it with NewHadoopJMX.
type HadoopJMX struct {
	url      string
	client   *http.Client
	interval time.Duration
	peerPort int // 0: keep Hadoop's peer names
	counters *counters
	log      *slog.Logger

	mu        sync.Mutex
	latencies map[string]float64 // guarded by mu: the last good document's
	readAt    time.Time          // guarded by mu: when it was read
	detector  *outlier.Detector  // guarded by mu
	samples   []outlier.Sample   // guarded by mu: scratch for detector
}

// NewHadoopJMX returns a source that reads url every cfg.HadoopJMXInterval
// with client and tests with cfg's MinOutlierDetectionNodes and
// LowThreshold. A nil client uses http.DefaultClient; a nil log discards.
func NewHadoopJMX(cfg Config, url string, client *http.Client, log *slog.Logger) *HadoopJMX {
	return newHadoopJMX(cfg, url, client, &counters{}, log)
}

func newHadoopJMX(cfg Config, url string, client *http.Client, c *counters, log *slog.Logger) *HadoopJMX {
	if cfg.HadoopJMXInterval <= 0 {
		panic(fmt.Sprintf("BUG: datanode.NewHadoopJMX: interval %v", cfg.HadoopJMXInterval))
	}
	if client == nil {
		client = http.DefaultClient
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &HadoopJMX{url: url, client: client, interval: cfg.HadoopJMXInterval, peerPort: cfg.HadoopJMXPeerPort,
		counters: c, log: log,
		detector: outlier.New(cfg.MinOutlierDetectionNodes, cfg.LowThreshold)}
}

// Run reads the document at once and then every interval until ctx is
// done. Each read is bounded by the interval.
func (h *HadoopJMX) Run(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, h.interval)
		err := h.Scrape(rctx)
		cancel()
		if err != nil && ctx.Err() != nil {
			return
		}
		t.Reset(h.interval)
	}
}

// Scrape reads the document once. On success its latencies become the
// source of reports; on failure nothing changes but the error counter.
func (h *HadoopJMX) Scrape(ctx context.Context) error {
	lat, err := h.fetch(ctx)
	if err != nil {
		if ctx.Err() == nil || !errors.Is(err, context.Canceled) {
			h.counters.jmxErrors.Add(1)
			h.log.Warn("reading the Hadoop DataNode's /jmx failed", slog.String("url", h.url), slog.Any("err", err))
		}
		return err
	}
	now := time.Now()
	h.mu.Lock()
	h.latencies, h.readAt = lat, now
	h.mu.Unlock()
	h.counters.jmxScrapes.Add(1)
	h.log.Debug("read the Hadoop DataNode's /jmx", slog.String("url", h.url), slog.Int("peers", len(lat)))
	return nil
}

func (h *HadoopJMX) fetch(ctx context.Context) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", h.url, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", h.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("read %s: status %d %s", h.url, resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJMXBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", h.url, err)
	}
	if len(data) > maxJMXBytes {
		return nil, fmt.Errorf("read %s: document larger than %d bytes", h.url, maxJMXBytes)
	}
	return peerLatencies(data, h.peerPort)
}

// peerLatencies reads the per-peer averages out of a /jmx document, with
// every peer's port replaced by port unless it is 0.
func peerLatencies(data []byte, port int) (map[string]float64, error) {
	beans, err := jmx.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("parse /jmx: %w", err)
	}
	lat, err := jmx.PeerLatencies(beans)
	if err != nil {
		return nil, err
	}
	if port == 0 {
		return lat, nil
	}
	out := make(map[string]float64, len(lat))
	for peer, ms := range lat {
		host, _, err := net.SplitHostPort(peer)
		if err != nil {
			return nil, fmt.Errorf("read peer latencies: peer %q: %w", peer, err)
		}
		id := net.JoinHostPort(host, strconv.Itoa(port))
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("read peer latencies: two peers become %s with port %d", id, port)
		}
		out[id] = ms
	}
	return out, nil
}

// Detect runs the outlier test over the latencies of the last good
// document. It fails when there is none younger than staleScrapes
// intervals, so that the heartbeat goes without a report.
func (h *HadoopJMX) Detect(now time.Time) (Detection, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.readAt.IsZero() {
		return Detection{}, fmt.Errorf("no /jmx document read from %s yet", h.url)
	}
	if age := now.Sub(h.readAt); age >= staleScrapes*h.interval {
		return Detection{}, fmt.Errorf("the last /jmx document read from %s is %v old", h.url, age.Round(time.Second))
	}
	samples := h.samples[:0]
	for peer, ms := range h.latencies {
		samples = append(samples, outlier.Sample{Name: peer, LatencyMs: ms})
	}
	// Map order is random; the detector's result does not depend on the
	// order, but sorted input keeps the scratch reuse deterministic.
	sort.Slice(samples, func(i, j int) bool { return samples[i].Name < samples[j].Name })
	h.samples = samples
	return detection(h.detector.Detect(samples), len(samples)), nil
}
