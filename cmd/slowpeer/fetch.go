package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/slowpeer/slowpeer/reports"
)

// serviceClient reads the service's API: an HTTP client (with the TLS
// flags) and the bearer token of a service with -auth-reads, if any.
type serviceClient struct {
	http  *http.Client
	token string
}

// plainClient is Go's default client without a token.
var plainClient = serviceClient{http: http.DefaultClient}

// do sends req, with the token if there is one.
func (c serviceClient) do(req *http.Request) (*http.Response, error) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return c.http.Do(req)
}

// read sends req and reads at most limit bytes of the answer. No answer
// at all is a noAnswerError, so that firstAnswer tries the next replica.
func (c serviceClient) read(req *http.Request, limit int) ([]byte, int, error) {
	target := req.URL.String()
	resp, err := c.do(req)
	if err != nil {
		return nil, 0, noAnswerError{err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read answer of %s: %w", target, err)
	}
	if len(body) > limit {
		return nil, 0, fmt.Errorf("%s answered more than %d bytes", target, limit)
	}
	return body, resp.StatusCode, nil
}

// get reads at most limit bytes of the answer to GET target.
func (c serviceClient) get(ctx context.Context, target string, limit int) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, 0, err
	}
	return c.read(req, limit)
}

// errNotServed is what a 404 to a read means: the service does not serve
// it (a service older than the command, or no slowpeer service at all).
var errNotServed = errors.New("not served")

// fetch reads GET target (at most limit bytes) and returns what parse
// makes of a 200 answer. Every error names target: another status is a
// *statusError (a 404 one wraps errNotServed), an answer parse refuses is
// a "bad answer", and no answer at all wraps errNoAnswer.
func fetch[T any](ctx context.Context, c serviceClient, target string, limit int, parse func([]byte) (T, error)) (T, error) {
	var zero T
	body, status, err := c.get(ctx, target, limit)
	if err != nil {
		return zero, err
	}
	if err := answerError(target, status, body); err != nil {
		return zero, err
	}
	v, err := parse(body)
	if err != nil {
		return zero, fmt.Errorf("bad answer from %s: %w", target, err)
	}
	return v, nil
}

// fetchOptional is fetch of a read that a service older than the command
// does not serve: served is false, and err nil, on a 404.
func fetchOptional[T any](ctx context.Context, c serviceClient, target string, limit int, parse func([]byte) (T, error)) (v T, served bool, err error) {
	v, err = fetch(ctx, c, target, limit, parse)
	if errors.Is(err, errNotServed) {
		return v, false, nil
	}
	return v, err == nil, err
}

// statusError is an answer with a status other than 200, and the
// service's reports.ErrorBody message (or the start of what it sent).
type statusError struct {
	target string
	status int
	msg    string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%s answered %d %s: %s", e.target, e.status, http.StatusText(e.status), e.msg)
}

// Is makes a 404 errNotServed.
func (e *statusError) Is(target error) bool {
	return target == errNotServed && e.status == http.StatusNotFound
}

// answerError returns the *statusError of an answer whose status is not
// 200, nil for 200.
func answerError(target string, status int, body []byte) error {
	if status == http.StatusOK {
		return nil
	}
	msg, ok := reports.ErrorMessage(body)
	if !ok {
		msg = strconv.Quote(clipBody(body))
	}
	return &statusError{target, status, msg}
}

// clipBody keeps an unexpected answer short in an error: at most 200
// bytes, on a rune boundary (reports.ClipTo).
func clipBody(b []byte) string {
	return reports.ClipTo(strings.TrimSpace(string(b)), 200)
}

// strictJSON decodes body into v, refusing unknown fields and trailing
// data.
func strictJSON(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// decodeArray decodes body, the answer of one of the service's reads,
// strictly (strictJSON): one JSON array of T, not null; what names the
// document in errors.
func decodeArray[T any](body []byte, what string) ([]T, error) {
	var out []T
	if err := strictJSON(body, &out); err != nil {
		return nil, fmt.Errorf("not %s: %w", what, err)
	}
	if out == nil {
		return nil, fmt.Errorf("not %s: want a JSON array", what)
	}
	return out, nil
}

// decodeEntries is decodeArray with check run on every entry; its errors
// name the entry by its index: "entry 3: ...".
func decodeEntries[T any](body []byte, what string, check func(T) error) ([]T, error) {
	out, err := decodeArray[T](body, what)
	if err != nil {
		return nil, err
	}
	for i, e := range out {
		if err := check(e); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
	}
	return out, nil
}
