package namenode

import (
	"errors"
	"log/slog"
	"net/http"
	"slices"
)

// validateAuth checks the token (validateToken) and that AuthReads comes
// with one.
func (c Config) validateAuth() error {
	if err := validateToken(c.AuthToken); err != nil {
		return err
	}
	if c.AuthReads && c.AuthToken == "" {
		return errors.New("auth reads needs an auth token")
	}
	return nil
}

// isRead reports whether method only reads: GET, HEAD or OPTIONS.
func isRead(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}

// OpenEndpoints returns, sorted, the routes ("METHOD /path") that answer
// without the bearer token: every route when the service has no token,
// the reads when it has one without AuthReads, none with both. The health
// paths, /healthz and /readyz, which answer without a token always and say
// nothing but "ok", are left out once there is a token.
func (s *Server) OpenEndpoints() []string {
	var open []string
	for _, r := range s.engine.Routes() {
		if s.cfg.AuthToken != "" && isHealthPath(r.Path) {
			continue
		}
		if s.cfg.AuthToken == "" || !s.cfg.AuthReads && isRead(r.Method) {
			open = append(open, r.Method+" "+r.Path)
		}
	}
	slices.Sort(open)
	return open
}

// warnOpen logs, once at start, what anyone who reaches the service may
// do without the token, and that a token over plain HTTP travels in clear.
func (s *Server) warnOpen(addr string) {
	listen := slog.String("listen", addr)
	switch open := s.OpenEndpoints(); {
	case s.cfg.AuthToken == "":
		s.log.Warn("no auth token: anyone who can reach the service can post heartbeats and slow-peer reports and read everything",
			listen, slog.Any("open", open))
	case len(open) > 0:
		s.log.Warn("reads need no token (no -auth-reads): anyone who can reach the service can read these",
			listen, slog.Any("open", open))
	}
	if s.cfg.TLS == nil && s.cfg.AuthToken != "" {
		s.log.Warn("no TLS: the bearer token and everything else travel in clear", listen)
	}
}
