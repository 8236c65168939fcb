package datanode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
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
// use until it is staleScrapes intervals old. A lasting condition of the
// DataNode (peer statistics off, a DataNode without them, no DataNodeInfo
// bean) is logged once when it begins and once when it ends, not at every
// read; it is still counted at every read.
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
	condition error              // guarded by mu: the lasting condition logged, nil if none
	latencies map[string]float64 // guarded by mu: the last good document's
	readAt    time.Time          // guarded by mu: when it was read
	detector  *outlier.Detector  // guarded by mu
	samples   []outlier.Sample   // guarded by mu: scratch for detector
}

// NewHadoopJMX returns a source that reads url every cfg.HadoopJMXInterval
// with client and tests with cfg's MinOutlierDetectionNodes and
// LowThreshold. A URL without a qry asks for DataNodeInfo alone (see
// HadoopJMXURL). A nil client uses http.DefaultClient; a nil log, slog.Default().
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
		log = slog.Default()
	}
	return &HadoopJMX{url: HadoopJMXURL(url), client: client, interval: cfg.HadoopJMXInterval, peerPort: cfg.HadoopJMXPeerPort,
		counters: c, log: log,
		detector: outlier.New(cfg.MinOutlierDetectionNodes, cfg.LowThreshold)}
}

// Run reads the document at once and then every interval until ctx is
// done, then returns nil. Each read is bounded by the interval. A read
// that fails does not end it: Scrape logs and counts the failure, the
// last good document stays in use, and the next interval reads again.
func (h *HadoopJMX) Run(ctx context.Context) error {
	scrapeEvery(ctx, h.interval, h.Scrape)
	return nil
}

// scrapeEvery calls scrape at once and then every interval until ctx is
// done, each call bounded by the interval.
func scrapeEvery(ctx context.Context, interval time.Duration, scrape func(context.Context) error) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, interval)
		err := scrape(rctx)
		cancel()
		if err != nil && ctx.Err() != nil {
			return
		}
		t.Reset(interval)
	}
}

// URL returns the URL the source reads.
func (h *HadoopJMX) URL() string { return h.url }

// lastingConditions are the errors of jmx.PeerLatencies that describe the
// DataNode rather than one read.
var lastingConditions = []error{jmx.ErrPeerStatsDisabled, jmx.ErrNoPeerStats, jmx.ErrNoDataNodeInfo}

// lasting returns the lasting condition err is, or nil.
func lasting(err error) error {
	for _, c := range lastingConditions {
		if errors.Is(err, c) {
			return c
		}
	}
	return nil
}

// Scrape reads the document once. On success its latencies become the
// source of reports; on failure nothing changes but the error counter.
func (h *HadoopJMX) Scrape(ctx context.Context) error {
	lat, err := h.fetch(ctx)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return err
		}
		h.counters.jmxErrors.Add(1)
		// A failed read says nothing of a lasting condition: only a good
		// read ends one, or another lasting condition replaces it.
		cond := lasting(err)
		h.mu.Lock()
		was := h.condition
		if cond != nil {
			h.condition = cond
		}
		h.mu.Unlock()
		switch {
		case cond == nil:
			h.log.Warn("reading the Hadoop DataNode's /jmx failed", slog.String("url", h.url), slog.Any("err", err))
		case cond != was:
			h.log.Warn("the Hadoop DataNode's /jmx has no peer latencies; no slow-peer reports until it has (logged once)",
				slog.String("url", h.url), slog.Any("read", err))
		}
		return err
	}
	now := time.Now()
	h.mu.Lock()
	was := h.condition
	h.condition = nil
	h.latencies, h.readAt = lat, now
	h.mu.Unlock()
	h.counters.jmxScrapes.Add(1)
	if was != nil {
		h.log.Info("the Hadoop DataNode's /jmx has peer latencies again", slog.String("url", h.url),
			slog.Int("peers", len(lat)), slog.String("before", was.Error()))
	}
	h.log.Debug("read the Hadoop DataNode's /jmx", slog.String("url", h.url), slog.Int("peers", len(lat)))
	return nil
}

// Latencies returns the per-peer latencies of the last good document, in
// milliseconds, or nil when there is none younger than staleScrapes
// intervals at now.
func (h *HadoopJMX) Latencies(now time.Time) map[string]float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.readAt.IsZero() || now.Sub(h.readAt) >= staleScrapes*h.interval {
		return nil
	}
	return maps.Clone(h.latencies)
}

// HadoopJMXURL returns the URL a HadoopJMX source reads for raw: raw with
// "/jmx" as its path when it has none, and
// "qry=Hadoop:service=DataNode,name=DataNodeInfo" added when it has no
// qry, so that only the bean the agent needs is read (a whole document is
// larger, and a bean of Hadoop's may hold anything). A raw that does not
// parse is returned as it is.
func HadoopJMXURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/jmx"
	}
	q := u.Query()
	if !q.Has("qry") && !q.Has("get") {
		// Written unencoded, as Hadoop's own tools and documentation do;
		// JMXJsonServlet decodes either.
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += "qry=" + jmx.DataNodeInfoBean
	}
	return u.String()
}

func (h *HadoopJMX) fetch(ctx context.Context) (map[string]float64, error) {
	data, err := getJMX(ctx, h.client, h.url)
	if err != nil {
		return nil, err
	}
	return peerLatencies(data, h.peerPort)
}

// getJMX reads the /jmx document at url, at most maxJMXBytes of it.
func getJMX(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", url, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("read %s: status %d %s", url, resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJMXBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", url, err)
	}
	if len(data) > maxJMXBytes {
		return nil, fmt.Errorf("read %s: document larger than %d bytes", url, maxJMXBytes)
	}
	return data, nil
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
