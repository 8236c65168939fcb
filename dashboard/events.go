package dashboard

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// retryMs is how long a page's EventSource waits before it reconnects
// after the stream ends or the service goes away.
const retryMs = 2000

// serveEvents streams the page's sections as server-sent events named
// "sections": one of a snapshot taken now, then each one Run takes, until
// the client goes, Run stops, or a write fails. Each event's data is the
// HTML of the sections, one "data:" line per line.
func (d *Dashboard) serveEvents(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // no proxy buffering the stream
	if r.Method == http.MethodHead {
		return
	}
	var b bytes.Buffer
	if err := writeSections(&b, d.page(d.now())); err != nil {
		fail(w, http.StatusInternalServerError, "internal error")
		return
	}
	d.watchers.Add(1)
	defer d.watchers.Add(-1)
	rc := http.NewResponseController(w)
	d.mu.Lock()
	next := d.next
	d.mu.Unlock()
	send := func(sections []byte) bool {
		// The server's write timeout would cut a long stream: each event
		// gets a deadline of its own, where the server lets us set one.
		err := rc.SetWriteDeadline(time.Now().Add(d.interval + 10*time.Second))
		if err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		if _, err := w.Write(event(sections)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if _, err := w.Write([]byte("retry: " + strconv.Itoa(retryMs) + "\n\n")); err != nil || !send(b.Bytes()) {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-d.stopped:
			return
		case <-next:
		}
		d.mu.Lock()
		sections := d.latest
		next = d.next
		d.mu.Unlock()
		if !send(sections) {
			return
		}
	}
}

// event frames sections as one server-sent event (HTML Living Standard,
// "Server-sent events": a line feed inside data starts another "data:"
// line, and the client joins them with line feeds).
func event(sections []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(sections) + 256)
	b.WriteString("event: sections\n")
	for line := range bytes.Lines(sections) {
		if l, ok := bytes.CutSuffix(line, []byte{'\n'}); ok {
			line, _ = bytes.CutSuffix(l, []byte{'\r'})
		}
		// Another carriage return would end the line too: HTML takes it
		// as a blank.
		line = bytes.ReplaceAll(line, []byte{'\r'}, []byte{' '})
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}
