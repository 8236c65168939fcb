package hiveserver

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slowpeer/slowpeer/reports"
)

// Hook is the kind of a hook event: the name of Hive's
// HookContext.HookType that ran the hook.
type Hook string

// The hook types a HiveServer sends, named as Hive's HookContext.HookType.
const (
	// PreExec is sent by a hook in hive.exec.pre.hooks when a statement
	// starts.
	PreExec Hook = "PRE_EXEC_HOOK"
	// PostExec is sent by a hook in hive.exec.post.hooks when a statement
	// ends well.
	PostExec Hook = "POST_EXEC_HOOK"
	// OnFailure is sent by a hook in hive.exec.failure.hooks when a
	// statement fails.
	OnFailure Hook = "ON_FAILURE_HOOK"
)

// Ends reports whether h ends a statement (PostExec or OnFailure).
func (h Hook) Ends() bool { return h == PostExec || h == OnFailure }

func (h Hook) valid() bool { return h == PreExec || h.Ends() }

// Limits on the fields of an event. The column types of the store hold
// them; a longer field is refused rather than cut.
const (
	// MaxQueryIDBytes is the longest queryId accepted.
	MaxQueryIDBytes = 255
	// MaxJobNameBytes is the longest jobName accepted.
	MaxJobNameBytes = 255
	// MaxQueryStrBytes is the longest decoded queryStr accepted (4 MiB).
	MaxQueryStrBytes = 4 << 20
	// MaxTimeMs is the latest timestamp accepted, 9999-12-31T23:59:59.999Z.
	MaxTimeMs = 253402300799999
)

// Event is one hook event: a statement started or ended on a HiveServer.
// It is a plain value, safe to copy.
type Event struct {
	// Server is the HiveServer's "host:port" (form field server).
	Server string
	// Hook is what happened (form field hook).
	Hook Hook
	// QueryID is Hive's query id, unique on its HiveServer (form field
	// queryId).
	QueryID string
	// QueryStr is the statement's text, decoded (form field queryStr).
	QueryStr string
	// JobName is the statement's mapred.job.name, without surrounding
	// blanks; empty when unset (form field jobName).
	JobName string
	// TimeMs is when the hook ran, in milliseconds since the epoch, by the
	// HiveServer's clock (form field timestamp).
	TimeMs int64
}

// The form fields of POST /rest/hiveserver/send (DESIGN.md).
const (
	fieldServer    = "server"
	fieldHook      = "hook"
	fieldQueryID   = "queryId"
	fieldQueryStr  = "queryStr"
	fieldJobName   = "jobName"
	fieldTimestamp = "timestamp"
)

// ParseEvent reads a hook event from the decoded fields of its form body.
// Every field must be present exactly once; jobName and queryStr may be
// empty. jobName is trimmed of surrounding blanks, so that a history
// groups names alike in every store. queryStr is URL-decoded a second time, as the hook URL-encodes it
// in UTF-8 (java.net.URLEncoder) before the form encoding: after the form
// decoding that form gives, "+" stands for a space and "%2B", "%25",
// "%26" for "+", "%" and "&". Fields other than these six are ignored. The
// error names the first bad field.
func ParseEvent(form url.Values) (Event, error) {
	var e Event
	var raw [6]string
	for i, name := range [...]string{fieldServer, fieldHook, fieldQueryID, fieldQueryStr, fieldJobName, fieldTimestamp} {
		vs, ok := form[name]
		switch {
		case !ok || len(vs) == 0:
			return Event{}, fmt.Errorf("missing field %s", name)
		case len(vs) > 1:
			return Event{}, fmt.Errorf("field %s given %d times", name, len(vs))
		}
		raw[i] = vs[0]
	}
	e.Server, e.Hook, e.QueryID, e.JobName = raw[0], Hook(raw[1]), raw[2], strings.TrimSpace(raw[4])
	s, err := url.QueryUnescape(raw[3])
	if err != nil {
		return Event{}, fmt.Errorf("field queryStr: not URL-encoded: %w", err)
	}
	e.QueryStr = s
	ts := raw[5]
	e.TimeMs, err = strconv.ParseInt(ts, 10, 64)
	if err != nil || ts == "" || ts[0] == '+' {
		return Event{}, fmt.Errorf("field timestamp: %q is not a whole number of milliseconds", reports.Clip(ts))
	}
	if err := e.Validate(); err != nil {
		return Event{}, err
	}
	return e, nil
}

// Validate returns an error naming the first bad field of e, or nil.
func (e Event) Validate() error {
	if err := reports.ValidateNode(e.Server); err != nil {
		return fmt.Errorf("field server: %w", err)
	}
	if !e.Hook.valid() {
		return fmt.Errorf("field hook: %q is not %s, %s or %s", reports.Clip(string(e.Hook)), PreExec, PostExec, OnFailure)
	}
	if e.QueryID == "" {
		return errors.New("field queryId: empty")
	}
	// MySQL's PAD SPACE collations ignore trailing blanks in comparisons:
	// ids and job names that differ only there would merge on MySQL and
	// not on SQLite.
	if strings.TrimSpace(e.QueryID) != e.QueryID {
		return errors.New("field queryId: leading or trailing blanks")
	}
	if strings.TrimSpace(e.JobName) != e.JobName {
		return errors.New("field jobName: leading or trailing blanks")
	}
	if err := checkText(e.QueryID, MaxQueryIDBytes, false); err != nil {
		return fmt.Errorf("field queryId: %w", err)
	}
	if err := checkText(e.JobName, MaxJobNameBytes, false); err != nil {
		return fmt.Errorf("field jobName: %w", err)
	}
	if err := checkText(e.QueryStr, MaxQueryStrBytes, true); err != nil {
		return fmt.Errorf("field queryStr: %w", err)
	}
	if e.TimeMs <= 0 || e.TimeMs > MaxTimeMs {
		return fmt.Errorf("field timestamp: %d is not between 1 and %d ms since the epoch", e.TimeMs, int64(MaxTimeMs))
	}
	return nil
}

// checkText accepts valid UTF-8 of at most maxBytes without NUL and,
// unless multiline, without any control character.
func checkText(s string, maxBytes int, multiline bool) error {
	if len(s) > maxBytes {
		return fmt.Errorf("%d bytes, at most %d allowed", len(s), maxBytes)
	}
	if !utf8.ValidString(s) {
		return errors.New("not valid UTF-8")
	}
	bad := func(r rune) bool { return r < ' ' || r == 0x7f }
	if multiline {
		bad = func(r rune) bool { return r == 0 }
	}
	if i := strings.IndexFunc(s, bad); i >= 0 {
		return fmt.Errorf("control character %U at byte %d", s[i], i)
	}
	return nil
}

// Form returns the form fields a hook sends for e, queryStr URL-encoded
// once as the hook does; Form().Encode() is the request body. ParseEvent
// reads it back to e.
func (e Event) Form() url.Values {
	return url.Values{
		fieldServer:    {e.Server},
		fieldHook:      {string(e.Hook)},
		fieldQueryID:   {e.QueryID},
		fieldQueryStr:  {url.QueryEscape(e.QueryStr)},
		fieldJobName:   {e.JobName},
		fieldTimestamp: {strconv.FormatInt(e.TimeMs, 10)},
	}
}
