package hiveserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"

	"github.com/slowpeer/slowpeer/reports"
)

// The paths of the picker's routes (DESIGN.md, "NameNode-side HTTP API").
const (
	SendPath    = "/rest/hiveserver/send"
	ServersPath = "/v1/hiveservers"
	PickPath    = "/v1/hiveservers/pick"
)

// MaxSendBytes is the largest hook event body accepted; a larger one is
// answered 413. A queryStr of MaxQueryStrBytes takes up to five times as
// many bytes once encoded twice.
const MaxSendBytes = 5*MaxQueryStrBytes + 64<<10

// SendHandler answers POST /rest/hiveserver/send: it reads the hook's form
// (ParseEvent) and ingests the event. 200 {} once the event is stored;
// 400 {"error": ...} for a bad event, nothing stored; 403 for an event of
// an unknown HiveServer under Config.KnownServersOnly; 413 for a body over
// MaxSendBytes; 405 for another method; 503 when the store fails (the hook
// may send again: a repeated event changes nothing).
func (p *Picker) SendHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("method %s not allowed, use POST", r.Method))
			return
		}
		if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/x-www-form-urlencoded" {
			writeError(w, http.StatusBadRequest, errors.New("want a form body, Content-Type application/x-www-form-urlencoded"))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, p.maxSendBytes)
		if err := r.ParseForm(); err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("body over %d bytes", p.maxSendBytes))
				return
			}
			writeError(w, http.StatusBadRequest, fmt.Errorf("read form: %w", err))
			return
		}
		e, err := ParseEvent(r.PostForm)
		if err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
		if p.cfg.KnownServersOnly && !p.known(e.Server) {
			p.refused.Add(1)
			writeError(w, http.StatusForbidden, fmt.Errorf("HiveServer %s is not known (-hiveservers or a registry): "+
				"without an auth token only their events are taken", reports.Clip(e.Server)))
			return
		}
		if err := p.Ingest(r.Context(), e); err != nil {
			p.log.Warn("hook event not stored", "server", e.Server, "queryId", reports.Clip(e.QueryID), "err", err)
			writeError(w, http.StatusServiceUnavailable, err)
			return
		}
		writeJSON(w, http.StatusOK, struct{}{})
	})
}

// ServersHandler answers GET /v1/hiveservers with the JSON array of
// Servers (load in seconds); slowHosts returns the current slow hosts.
func (p *Picker) ServersHandler(slowHosts func() []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !getOnly(w, r) {
			return
		}
		writeJSON(w, http.StatusOK, p.Servers(p.now(), slowHosts()))
	})
}

// pickReply is the JSON of a pick.
type pickReply struct {
	Server      string  `json:"server"`
	Running     int     `json:"running"`
	LoadSeconds float64 `json:"load"`
}

// PickHandler answers GET /v1/hiveservers/pick: 200 {"server", "running",
// "load"} with Pick's choice, 503 {"error": reason} when none is eligible.
// slowHosts returns the current slow hosts.
func (p *Picker) PickHandler(slowHosts func() []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !getOnly(w, r) {
			return
		}
		s, err := p.Pick(p.now(), slowHosts())
		if err != nil {
			writeError(w, http.StatusServiceUnavailable, err)
			return
		}
		writeJSON(w, http.StatusOK, pickReply{Server: s.Server, Running: s.Running, LoadSeconds: s.LoadSeconds})
	})
}

func getOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("method %s not allowed, use GET", r.Method))
	return false
}

func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, reports.ErrorBody{Error: err.Error()})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("BUG: encode %T: %v", v, err))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}
