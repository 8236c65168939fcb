package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// The paths the Dashboard answers (DESIGN.md: GET /ui/).
const (
	// Path is the page, and the prefix of everything the Dashboard serves.
	Path = "/ui/"
	// EventsPath streams the page's sections as server-sent events.
	EventsPath = Path + "events"
)

// DefaultInterval is how often Run takes a snapshot and sends it to the
// open pages.
const DefaultInterval = 2 * time.Second

// Config configures a Dashboard. Its zero value works.
type Config struct {
	// Interval is how often Run takes a snapshot and sends it to the open
	// pages; DefaultInterval when 0.
	Interval time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Logger gets what goes wrong while rendering; slog.Default when nil.
	Logger *slog.Logger
}

// Dashboard is the operator's page: an http.Handler for everything under
// Path, and Run, which sends live updates to the open pages. It is safe
// for concurrent use. Build it with New.
type Dashboard struct {
	src      Source
	interval time.Duration
	now      func() time.Time
	log      *slog.Logger

	// mu guards since, latest and next.
	mu sync.Mutex
	// since is when the dashboard first saw each node slow, for those
	// whose Source gives no Since; a node leaves it when it is no longer
	// slow.
	since  map[string]time.Time
	latest []byte        // the sections of the newest snapshot Run took
	next   chan struct{} // closed when Run replaces latest

	stopped  chan struct{} // closed when Run returns: event streams end
	watchers atomic.Int64  // open event streams

	// heatMu guards the last heatmap drawn from a Matrix and that Matrix:
	// a Source that gives the same *Matrix again gets it again, not drawn
	// anew (a matrix of 10 000 reporters is tens of milliseconds).
	heatMu sync.Mutex
	heatOf *Matrix
	heat   heatmap

	// shownMu guards shown, the whole page last drawn for GET, and
	// shownAt, the snapshot it was drawn from (pageHTML).
	shownMu sync.Mutex
	shown   []byte
	shownAt time.Time
}

// New returns a Dashboard of src. A nil src is a programmer error.
func New(src Source, cfg Config) *Dashboard {
	if src == nil {
		panic("BUG: dashboard.New with a nil Source")
	}
	d := &Dashboard{src: src, interval: cfg.Interval, now: cfg.Now, log: cfg.Logger,
		since: map[string]time.Time{}, next: make(chan struct{}), stopped: make(chan struct{})}
	if d.interval <= 0 {
		d.interval = DefaultInterval
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.log == nil {
		d.log = slog.Default()
	}
	return d
}

// Run takes a snapshot every Config.Interval and sends it to the open
// pages, until ctx ends; then it ends their event streams (so that the
// HTTP server can shut down) and returns nil. Call it once.
func (d *Dashboard) Run(ctx context.Context) error {
	defer close(d.stopped)
	t := time.NewTicker(d.interval)
	defer t.Stop()
	for {
		d.Step(d.now())
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Step takes a snapshot at now and sends it to the open pages (it renders
// nothing while none is open). Run calls it every Config.Interval.
func (d *Dashboard) Step(now time.Time) {
	p := d.page(now) // also when nobody watches: it keeps since
	if d.watchers.Load() == 0 {
		return
	}
	var b bytes.Buffer
	if err := writeSections(&b, p); err != nil {
		d.log.Error("render dashboard", slog.Any("err", err))
		return
	}
	d.mu.Lock()
	d.latest = b.Bytes()
	close(d.next)
	d.next = make(chan struct{})
	d.mu.Unlock()
}

// page takes a snapshot at now, fills in the Since it lacks, and digests
// it.
func (d *Dashboard) page(now time.Time) page {
	v := d.src.Snapshot(now)
	v.SlowNodes = append([]SlowNode(nil), v.SlowNodes...)
	d.mu.Lock()
	seen := make(map[string]time.Time, len(v.SlowNodes))
	for i, s := range v.SlowNodes {
		if s.Since.IsZero() {
			if first, ok := d.since[s.Node]; ok {
				v.SlowNodes[i].Since = first
			} else {
				v.SlowNodes[i].Since = now
			}
		}
		seen[s.Node] = v.SlowNodes[i].Since
	}
	d.since = seen
	d.mu.Unlock()
	return newPage(now, v, d.heatmap(v))
}

// heatmap returns the heatmap of v, the last one when v has the Matrix it
// was drawn from.
func (d *Dashboard) heatmap(v View) heatmap {
	if v.Matrix == nil {
		return newHeatmap(nil, v.SlowNodes)
	}
	d.heatMu.Lock()
	h, same := d.heat, d.heatOf == v.Matrix
	d.heatMu.Unlock()
	if same {
		return h // read only: the pages share it
	}
	h = newHeatmap(v.Matrix, nil)
	d.heatMu.Lock()
	d.heatOf, d.heat = v.Matrix, h
	d.heatMu.Unlock()
	return h
}

// ServeHTTP answers GET and HEAD of Path (the page), EventsPath, and the
// page's script and style sheet; 404 for other paths under Path, 405 for
// other methods, each with {"error": "..."} as the service's other errors.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		fail(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	switch name, _ := strings.CutPrefix(r.URL.Path, Path); name {
	case "":
		d.servePage(w, r)
	case "events":
		d.serveEvents(w, r)
	case "app.js", "style.css":
		h.Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, assets, "assets/"+name)
	default:
		fail(w, http.StatusNotFound, "no such path")
	}
}

// servePage writes the whole page of a snapshot taken less than an
// interval ago.
func (d *Dashboard) servePage(w http.ResponseWriter, r *http.Request) {
	b, err := d.pageHTML(d.now())
	if err != nil {
		d.log.Error("render dashboard", slog.Any("err", err))
		fail(w, http.StatusInternalServerError, "internal error")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		return
	}
	w.Write(b)
}

// pageHTML returns the whole page of the snapshot taken at now, or of the
// last one when that is less than an interval older (the open pages get
// no fresher updates): however many load the page, the Source is read and
// the page drawn at most once an interval. A snapshot of 10 000 DataNodes
// is a few milliseconds of the service's locks, and drawing it more.
func (d *Dashboard) pageHTML(now time.Time) ([]byte, error) {
	d.shownMu.Lock()
	defer d.shownMu.Unlock()
	if d.shown != nil && !now.Before(d.shownAt) && now.Sub(d.shownAt) < d.interval {
		return d.shown, nil
	}
	var b bytes.Buffer
	if err := writePage(&b, d.page(now)); err != nil {
		return nil, err
	}
	d.shown, d.shownAt = b.Bytes(), now
	return d.shown, nil
}

// fail answers status with the service's error body, {"error": msg}.
func fail(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(reports.ErrorBody{Error: msg})
}
