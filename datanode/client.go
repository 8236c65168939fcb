package datanode

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/slowpeer/slowpeer/reports"
)

// heartbeatClient posts heartbeats to one NameNode-side service, as
// DESIGN.md's POST /v1/heartbeat (reports.HeartbeatPath). It is safe for concurrent use.
type heartbeatClient struct {
	base     string // the service's base URL, for messages
	endpoint string // base + reports.HeartbeatPath
	token    string
	http     *http.Client
	// prove: the token goes only to a service that proved it holds it
	// (reports.ChallengeHeader), as one found in a registry over plain
	// HTTP must; addr is the host:port it must prove it for.
	prove  bool
	addr   string
	proven atomic.Bool
	// gzip: the service's latest answer said it takes gzip bodies
	// (reports.AcceptsGzip); false until it says so, and again after a
	// heartbeat that got no answer.
	gzip atomic.Bool
}

// gzipWriters holds the gzip writers of heartbeat bodies.
var gzipWriters sync.Pool

// newHeartbeatClient returns the client of the service at base. With
// registered set (the service was found in a registry, where anyone who
// may write can add an entry), the token goes to it over plain HTTP only
// once it proved it holds the token too; over HTTPS the certificate
// vouches for the host the registry named.
func newHeartbeatClient(base, token string, registered bool, c *http.Client) (*heartbeatClient, error) {
	endpoint, err := url.JoinPath(base, reports.HeartbeatPath)
	if err != nil {
		return nil, fmt.Errorf("heartbeat URL of %q: %w", base, err)
	}
	hc := &heartbeatClient{base: base, endpoint: endpoint, token: token, http: c}
	if u, err := url.Parse(base); err == nil && registered && token != "" && u.Scheme == "http" {
		hc.prove, hc.addr = true, u.Host
	}
	return hc, nil
}

// SendHeartbeat posts hb and returns the service's reply, with the
// reasons of the probe requests reports.ParseHeartbeatReply left out of
// it. Any answer but 200 with a well-formed reply is an error that names
// the status and the service's message. A body larger than
// reports.GzipMinBytes goes compressed with gzip when the service's latest
// answer said it takes that; a compressed body answered without saying
// so (the service was replaced by an older one) is sent again plain at
// once.
func (c *heartbeatClient) SendHeartbeat(ctx context.Context, hb reports.Heartbeat) (reports.HeartbeatReply, []string, error) {
	body, err := json.Marshal(hb)
	if err != nil {
		return reports.HeartbeatReply{}, nil, fmt.Errorf("encode heartbeat: %w", err)
	}
	gzipped := c.gzip.Load() && len(body) > reports.GzipMinBytes
	if gzipped {
		body = compress(body)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return reports.HeartbeatReply{}, nil, fmt.Errorf("heartbeat to %s: %w", c.base, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if gzipped {
		req.Header.Set("Content-Encoding", "gzip")
	}
	nonce := ""
	switch {
	case c.token == "":
	case c.prove && !c.proven.Load():
		nonce = reports.NewChallenge()
		req.Header.Set(reports.ChallengeHeader, nonce)
	default:
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.gzip.Store(false) // whoever answers next says again what it takes
		return reports.HeartbeatReply{}, nil, fmt.Errorf("heartbeat to %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	c.gzip.Store(reports.AcceptsGzip(resp.Header))
	if gzipped && !c.gzip.Load() && resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, reports.MaxReplyBytes))
		return c.SendHeartbeat(ctx, hb) // plain now
	}
	if nonce != "" {
		proven := reports.VerifyProof(c.token, c.addr, nonce, resp.Header.Get(reports.ProofHeader))
		switch {
		case proven && resp.StatusCode == http.StatusUnauthorized:
			c.proven.Store(true)
			io.Copy(io.Discard, io.LimitReader(resp.Body, reports.MaxReplyBytes))
			return c.SendHeartbeat(ctx, hb) // with the token now
		case proven:
			c.proven.Store(true)
		case resp.StatusCode == http.StatusUnauthorized:
			return reports.HeartbeatReply{}, nil, fmt.Errorf("heartbeat to %s: it wants the token but does not prove it holds it (%s); "+
				"a service found in a registry gets the token over plain HTTP only then: not sent", c.base, reports.ProofHeader)
		}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, reports.MaxReplyBytes+1))
	if err != nil {
		return reports.HeartbeatReply{}, nil, fmt.Errorf("heartbeat to %s: read reply: %w", c.base, err)
	}
	reply, ignored, err := reports.ParseHeartbeatAnswer(resp.StatusCode, data)
	if err != nil {
		return reports.HeartbeatReply{}, nil, fmt.Errorf("heartbeat to %s: %w", c.base, err)
	}
	return reply, ignored, nil
}

// compress returns body compressed with gzip at reports.GzipLevel.
func compress(body []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(body)/2 + 64)
	zw, _ := gzipWriters.Get().(*gzip.Writer)
	if zw == nil {
		var err error
		if zw, err = gzip.NewWriterLevel(&out, reports.GzipLevel); err != nil {
			panic("BUG: datanode: gzip level: " + err.Error())
		}
	} else {
		zw.Reset(&out)
	}
	defer gzipWriters.Put(zw)
	zw.Write(body) // a bytes.Buffer takes every byte
	if err := zw.Close(); err != nil {
		panic("BUG: datanode: gzip into memory: " + err.Error())
	}
	return out.Bytes()
}
