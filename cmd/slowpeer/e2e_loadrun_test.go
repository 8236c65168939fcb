//go:build e2e

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// The clients of TestServiceLoad: the agents, the readers and the
// dashboard page that follows the live events.

func connsName(conns, agents int) string {
	if conns == 0 {
		return fmt.Sprintf("one per agent (%d)", agents)
	}
	return fmt.Sprintf("%d shared", conns)
}

// runReader reads url every -load-read-every until ctx ends, starting at
// a random moment of the first period.
func runReader(ctx context.Context, client *http.Client, url, endpoint string, rec *loadRecorder) {
	if !sleepUntil(ctx, time.Now().Add(rand.N(*loadReadEvery))) {
		return
	}
	tick := time.NewTicker(*loadReadEvery)
	defer tick.Stop()
	for {
		start := time.Now()
		err := getWhole(ctx, client, url)
		if ctx.Err() != nil {
			return
		}
		rec.add(endpoint, start, time.Since(start), err)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// getWhole reads url whole and wants 200.
func getWhole(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	return readAnswer(resp, nil)
}

// readAnswer reads resp's body whole and closes it; it wants 200 and a
// body that ok accepts (any, with ok nil: then a 200's body is read and
// dropped, not kept, so that the readers' megabytes a second do not
// busy the generator's collector).
func readAnswer(resp *http.Response, ok func(body []byte) bool) error {
	defer resp.Body.Close()
	if ok == nil && resp.StatusCode == http.StatusOK {
		_, err := io.Copy(io.Discard, resp.Body)
		return err
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || ok != nil && !ok(b) {
		return fmt.Errorf("%s: %s", resp.Status, reports.Clip(string(b)))
	}
	return nil
}

// loadEvents is what the dashboard page following the live events got.
type loadEvents struct {
	events   int
	maxBytes int
}

// followEvents follows the dashboard's event stream at url until ctx
// ends, as an open page does; a stream that ends or fails before is an
// error of the endpoint.
func followEvents(ctx context.Context, url string, rec *loadRecorder) loadEvents {
	var ev loadEvents
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		rec.add(url, time.Now(), 0, err)
		return ev
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	start := time.Now()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		rec.add("/ui/events", start, 0, err)
		return ev
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 64<<20)
	size := 0
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "event: sections":
			size = 0
		case strings.HasPrefix(line, "data: "):
			size += len(line) - len("data: ") + 1
		case line == "" && size > 0:
			ev.events++
			ev.maxBytes = max(ev.maxBytes, size)
			size = 0
		}
	}
	err = sc.Err()
	if ctx.Err() == nil {
		if err == nil {
			err = errors.New("the stream ended")
		}
		rec.add("/ui/events", start, 0, err)
	}
	return ev
}

// waitUp waits until the service answers, at most 30 s.
func waitUp(t *testing.T, client *http.Client, base string, nn *proc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for getWhole(ctx, client, base+namenode.DataNodesPath) != nil {
		if !nn.running() || !sleepUntil(ctx, time.Now().Add(50*time.Millisecond)) {
			t.Fatalf("the service did not answer:\n%s", nn.logText())
		}
	}
}

// sleepUntil waits until at or until ctx ends, and reports whether at
// came first.
func sleepUntil(ctx context.Context, at time.Time) bool {
	timer := time.NewTimer(time.Until(at))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

func mustSample(t *testing.T, pid int) procSample {
	t.Helper()
	s, err := sampleProc(pid)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mib(bytes int64) float64 { return float64(bytes) / (1 << 20) }
