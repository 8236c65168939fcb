package namenode

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/reports"
)

// DefaultRestoreTimeout bounds how long Restore waits for the replicas to
// answer before the service starts from its own file, or empty.
const DefaultRestoreTimeout = 2 * time.Second

// serveState handles GET /v1/state: the Server's state for a replica that
// starts. It holds every reporter's figures, so when a token is set it
// requires it on this GET too, whatever other reads allow.
func (s *Server) serveState(c *gin.Context) {
	if !s.tokenPresented(c) {
		c.Header("WWW-Authenticate", `Bearer realm="slowpeer"`)
		s.fail(c, http.StatusUnauthorized, "missing or wrong bearer token")
		return
	}
	c.Header("Content-Type", "application/json")
	c.Status(http.StatusOK)
	if err := s.WriteState(c.Writer, s.now()); err != nil {
		s.log.Debug("write state", slog.Any("err", err)) // the reader went away: its read fails
	}
}

// tokenPresented reports whether the service is open or the request
// carries "Authorization: Bearer <token>" with the configured token,
// compared as SHA-256 hashes in constant time.
func (s *Server) tokenPresented(c *gin.Context) bool {
	if s.cfg.AuthToken == "" {
		return true
	}
	scheme, token, _ := strings.Cut(c.GetHeader("Authorization"), " ")
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], s.authHash[:]) == 1 && strings.EqualFold(scheme, "Bearer")
}

// Restore takes the state of the first of peers (base URLs of the other
// replicas, "http://h:p") to answer GET /v1/state, with the Server's own
// bearer token, and imports it (ImportState). All peers are asked at once:
// a dead or hanging one, or the service's own stale registration, costs
// nothing while another answers. It returns the peer used, or an error
// when none answered before ctx ended (bound it: DefaultRestoreTimeout).
// Call it before the Server serves, so that it answers with what the
// others know; client nil means http.DefaultClient.
func (s *Server) Restore(ctx context.Context, peers []string, client *http.Client) (string, error) {
	if len(peers) == 0 {
		return "", errors.New("restore state: no replica to ask")
	}
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		peer string
		st   Snapshot
		err  error
	}
	answers := make(chan answer, len(peers))
	for _, p := range peers {
		go func() {
			st, err := fetchState(ctx, client, p, s.cfg.AuthToken)
			answers <- answer{p, st, err}
		}()
	}
	var errs []error
	for range peers {
		a := <-answers
		if a.err != nil {
			errs = append(errs, a.err)
			continue
		}
		cancel() // the others need not finish
		now := s.now()
		nr, nn := s.ImportState(now, a.st)
		s.log.Info("state taken from a replica", slog.String("replica", a.peer),
			slog.Int("reports", nr), slog.Int("datanodes", nn),
			slog.Duration("age", now.Sub(a.st.SavedAt).Round(time.Millisecond)))
		return a.peer, nil
	}
	return "", fmt.Errorf("restore state: no replica answered: %w", errors.Join(errs...))
}

// fetchState reads GET base/v1/state.
func fetchState(ctx context.Context, client *http.Client, base, token string) (Snapshot, error) {
	url := strings.TrimRight(base, "/") + StatePath
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Snapshot{}, fmt.Errorf("get %s: %w", url, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return Snapshot{}, fmt.Errorf("get %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxStateBytes+1))
	if err != nil {
		return Snapshot{}, fmt.Errorf("get %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return Snapshot{}, fmt.Errorf("get %s: %s: %s", url, resp.Status, reports.Clip(string(body)))
	}
	st, err := ParseState(body)
	if err != nil {
		return Snapshot{}, fmt.Errorf("get %s: %w", url, err)
	}
	return st, nil
}
