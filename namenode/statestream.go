package namenode

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// statePage is how many reports, or DataNodes, WriteState copies and
// encodes at a time: the memory it holds whatever the size of the state,
// and the longest the tracker's lock is held for it.
const statePage = 1000

// WriteState writes the Server's state at now to w as the state document
// (the bytes MarshalState writes of ExportState), a page of statePage
// reports or DataNodes at a time, so that its memory does not grow with
// the state: 100 MB of state cost a page, not 300 MB of copies.
func (s *Server) WriteState(w io.Writer, now time.Time) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := s.writeState(bw, now); err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	return bw.Flush()
}

func (s *Server) writeState(w *bufio.Writer, now time.Time) error {
	saved, err := json.Marshal(now.Round(0).UTC())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, `{"format":%q,"version":%d,"savedAt":%s,"reports":[`, StateFormat, StateVersion, saved)
	reporters := s.tracker.Reporters(now)
	first := true
	for from := 0; from < len(reporters); from += statePage {
		for _, h := range s.tracker.HeldOf(now, reporters[from:min(from+statePage, len(reporters))]) {
			if err := writeElem(w, &first, heldJSON{Reporter: h.Reporter, Arrival: h.Arrival.Round(0).UTC(), SlowPeers: h.SlowPeers}); err != nil {
				return err
			}
		}
	}
	w.WriteString(`],"datanodes":[`)
	first = true
	for after := ""; ; {
		page, more := s.nodes.Page(now, after, statePage)
		for _, n := range page {
			if err := writeElem(w, &first, nodeStateJSON{Node: n.Node, LastHeartbeat: n.LastHeartbeat.Round(0).UTC()}); err != nil {
				return err
			}
		}
		if !more {
			break
		}
		after = page[len(page)-1].Node
	}
	w.WriteString("]")
	if s.cfg.AuthToken == "" { // ExportState's Open
		w.WriteString(`,"open":true`)
	}
	_, err = w.WriteString("}")
	return err
}

// writeElem writes v as the next element of a JSON array, a comma before
// it unless *first, as encoding/json writes the elements of a slice.
func writeElem(w *bufio.Writer, first *bool, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if !*first {
		w.WriteByte(',')
	}
	*first = false
	_, err = w.Write(b)
	return err
}
