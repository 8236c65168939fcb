package namenode

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/reports"
)

// prove answers a client's reports.ChallengeHeader with the proof that
// this service holds the token, for the address it is registered under
// (Config.Advertise), on every answer, a 401 included: a client that
// found the service in a registry sends its token only then.
func (s *Server) prove(c *gin.Context) {
	if s.cfg.AuthToken == "" || s.cfg.Advertise == "" {
		return
	}
	if nonce := c.GetHeader(reports.ChallengeHeader); reports.ValidChallenge(nonce) {
		c.Header(reports.ProofHeader, reports.Proof(s.cfg.AuthToken, s.cfg.Advertise, nonce))
	}
}

// Authenticate asks the replica at base ("http://h:p", as a registry
// names it) to prove that it holds token (reports.ChallengeHeader), with
// a request to path that carries no token, and returns nil once it did.
// A replica that answers without a valid proof (a registry entry nobody
// checked, a relay to a real replica, an old version) is an error: it
// gets neither the token nor the right to hand over state.
func Authenticate(ctx context.Context, client *http.Client, base, path, token string) error {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return fmt.Errorf("authenticate %q: not a base URL", base)
	}
	if _, _, err := net.SplitHostPort(u.Host); err != nil {
		return fmt.Errorf("authenticate %s: no port", base)
	}
	target := strings.TrimRight(base, "/") + path
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, target, nil)
	if err != nil {
		return fmt.Errorf("authenticate %s: %w", base, err)
	}
	nonce := reports.NewChallenge()
	req.Header.Set(reports.ChallengeHeader, nonce)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("authenticate %s: %w", base, err)
	}
	resp.Body.Close()
	if !reports.VerifyProof(token, u.Host, nonce, resp.Header.Get(reports.ProofHeader)) {
		return fmt.Errorf("authenticate %s: it does not prove it holds the token (%s); it is not trusted with it", base, resp.Status)
	}
	return nil
}
