package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// HeartbeatReply is the answer to a heartbeat.
type HeartbeatReply struct {
	// Slow is true when the sender itself is currently reported slow by
	// its peers, as HDFS-16320 tells a DataNode.
	Slow bool `json:"slow"`
	// Probe asks the sender to probe these peers now, as Hadoop's
	// heartbeat response carries DatanodeCommands: the fast path's
	// confirmation rounds. Absent when the service asks nothing.
	Probe []ProbeRequest `json:"probe,omitempty"`
}

// ProbeRequest asks an agent for Blocks probe blocks towards Node, to be
// sent back as recentLatencies with the request's Round.
type ProbeRequest struct {
	// Node is the peer to probe, "host:port".
	Node string `json:"node"`
	// Blocks is how many blocks to send, 1 to MaxProbeBlocks.
	Blocks int `json:"blocks"`
	// Round is the service's confirmation round, at least 1.
	Round int64 `json:"round"`
}

func (p ProbeRequest) validate() error {
	if err := ValidateNode(p.Node); err != nil {
		return fmt.Errorf("node: %w", err)
	}
	if p.Blocks < 1 || p.Blocks > MaxProbeBlocks {
		return fmt.Errorf("blocks: %d, want 1 to %d", p.Blocks, MaxProbeBlocks)
	}
	if p.Round < 1 {
		return fmt.Errorf("round: %d, want at least 1", p.Round)
	}
	return nil
}

// ParseHeartbeatReply reads a 200 answer to a heartbeat: one JSON object
// with a boolean "slow" and an optional "probe" array of at most
// MaxProbeRequests objects; other members are ignored, for services newer
// than the agent. Well-formed requests that ask too much (a bad node, 0 or
// more than MaxProbeBlocks blocks, a round below 1, a node asked twice) are
// left out of the reply, each with a reason in ignored; the agent obeys the
// rest.
func ParseHeartbeatReply(data []byte) (reply HeartbeatReply, ignored []string, err error) {
	var raw struct {
		Slow  *bool          `json:"slow"`
		Probe []ProbeRequest `json:"probe"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return HeartbeatReply{}, nil, fmt.Errorf("malformed reply: %w", err)
	}
	if dec.More() {
		return HeartbeatReply{}, nil, errors.New("malformed reply: data after the JSON object")
	}
	if raw.Slow == nil {
		return HeartbeatReply{}, nil, errors.New(`malformed reply: no boolean "slow"`)
	}
	if len(raw.Probe) > MaxProbeRequests {
		return HeartbeatReply{}, nil, fmt.Errorf("malformed reply: %d probe requests, at most %d allowed", len(raw.Probe), MaxProbeRequests)
	}
	reply.Slow = *raw.Slow
	seen := make(map[string]bool, len(raw.Probe))
	for i, p := range raw.Probe {
		err := p.validate()
		if err == nil && seen[p.Node] {
			err = fmt.Errorf("node %q asked twice", Clip(p.Node))
		}
		if err != nil {
			ignored = append(ignored, fmt.Sprintf("probe[%d]: %v", i, err))
			continue
		}
		seen[p.Node] = true
		reply.Probe = append(reply.Probe, p)
	}
	return reply, ignored, nil
}

// MaxReplyBytes bounds the answer to a heartbeat an agent reads: a reply
// is {"slow":false} with at most MaxProbeRequests probe requests, an
// error one ErrorBody.
const MaxReplyBytes = 64 << 10

// ParseHeartbeatAnswer reads the service's answer to a heartbeat,
// whatever its status: for 200 the reply as ParseHeartbeatReply reads it,
// with the reasons of the probe requests it left out; for any other
// status an error that names the status and the service's ErrorMessage.
// An answer of more than MaxReplyBytes is an error whatever it says.
func ParseHeartbeatAnswer(status int, data []byte) (reply HeartbeatReply, ignored []string, err error) {
	if len(data) > MaxReplyBytes {
		return HeartbeatReply{}, nil, fmt.Errorf("status %d: reply larger than %d bytes", status, MaxReplyBytes)
	}
	if status != http.StatusOK {
		msg, ok := ErrorMessage(data)
		if !ok {
			msg = "no error message"
		}
		return HeartbeatReply{}, nil, fmt.Errorf("status %d %s: %s", status, http.StatusText(status), msg)
	}
	return ParseHeartbeatReply(data)
}
