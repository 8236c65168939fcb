// Package storetest holds what the tests of hiveserver's stores share: the
// behaviour every [hiveserver.Store] must have, as tests each store runs
// ([Run]); a running Picker on a store ([OpenPicker]) and the events the
// tests send; and the reference bodies of the Java hook ([HookCases]).
//
// [hiveserver.MemoryStore] runs the tests in hiveserver's own tests,
// SQLite and MySQL/MariaDB in those of
// [github.com/slowpeer/slowpeer/hiveserver/sqlstore].
package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// Store is a hiveserver.Store that can read one row back, as
// hiveserver.MemoryStore and sqlstore's Store can.
type Store interface {
	hiveserver.Store
	// Lookup returns the row of a statement, and false when there is none.
	Lookup(ctx context.Context, server, queryID string) (hiveserver.Query, bool, error)
}

// Run runs the tests every store must pass, each a subtest on a new, empty
// store that open returns (and closes at the end of the subtest, if the
// store needs closing).
func Run(t *testing.T, open func(t *testing.T) Store) {
	t.Run("Merge", func(t *testing.T) { testMerge(t, open(t)) })
	t.Run("IngestConcurrent", func(t *testing.T) { testIngestConcurrent(t, open(t)) })
	t.Run("SendJavaBodies", func(t *testing.T) { testSendJavaBodies(t, open(t)) })
}

// testMerge pins the row of the original design that a sequence of events
// leaves, whether the events come in one transaction or one each.
func testMerge(t *testing.T, s Store) {
	ctx := context.Background()
	n := 0
	f := func(name string, events []hiveserver.Event, want hiveserver.Query) {
		t.Helper()
		for _, batched := range []bool{true, false} {
			n++
			id := fmt.Sprintf("q%d", n)
			for i := range events {
				events[i].QueryID = id
			}
			if batched {
				if _, err := s.Commit(ctx, events); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			} else {
				for _, e := range events {
					if _, err := s.Commit(ctx, []hiveserver.Event{e}); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				}
			}
			got, ok, err := s.Lookup(ctx, "hs1:10000", id)
			w := want
			w.Server, w.QueryID = "hs1:10000", id
			if err != nil || !ok || got != w {
				t.Errorf("%s (batched %v):\n got %+v, %v, %v\nwant %+v", name, batched, got, ok, err, w)
			}
		}
	}
	const pre, post, failure = hiveserver.PreExec, hiveserver.PostExec, hiveserver.OnFailure
	e := func(hook hiveserver.Hook, job, text string, ms int64) hiveserver.Event {
		return hiveserver.Event{Server: "hs1:10000", Hook: hook, QueryStr: text, JobName: job, TimeMs: ms}
	}
	type events = []hiveserver.Event
	type row = hiveserver.Query
	f("start", events{e(pre, "j", "SELECT 1", 100)},
		row{Hook: pre, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100})
	f("start then end", events{e(pre, "j", "SELECT 1", 100), e(post, "j", "SELECT 1", 250)},
		row{Hook: post, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100, PostTimeMs: 250})
	f("end without start is kept", events{e(failure, "j", "SELECT 1", 250)},
		row{Hook: failure, QueryStr: "SELECT 1", JobName: "j", PostTimeMs: 250})
	f("late start completes the row", events{e(post, "j", "SELECT 1", 250), e(pre, "j", "SELECT 1", 100)},
		row{Hook: post, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100, PostTimeMs: 250})
	f("the same event twice", events{e(pre, "j", "SELECT 1", 100), e(pre, "j", "SELECT 1", 100)},
		row{Hook: pre, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100})
	f("the first start wins", events{e(pre, "j", "SELECT 1", 100), e(pre, "k", "SELECT 2", 90)},
		row{Hook: pre, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100})
	f("the first end wins", events{e(pre, "j", "S", 100), e(failure, "j", "S", 300), e(post, "j", "S", 200)},
		row{Hook: failure, QueryStr: "S", JobName: "j", PreTimeMs: 100, PostTimeMs: 300})
	f("empty fields are filled later", events{e(pre, "", "", 100), e(post, "j", "SELECT 3", 200)},
		row{Hook: post, QueryStr: "SELECT 3", JobName: "j", PreTimeMs: 100, PostTimeMs: 200})
	text := "SELECT '名字', '😀', '%2B', '+', '&' FROM 用户表\n\t-- 北京"
	f("any text", events{e(pre, "日报 名", text, 100)},
		row{Hook: pre, QueryStr: text, JobName: "日报 名", PreTimeMs: 100})
	long, longJob := strings.Repeat("长", hiveserver.MaxQueryStrBytes/3), strings.Repeat("j", hiveserver.MaxJobNameBytes)
	f("longest text", events{e(pre, longJob, long, 100)},
		row{Hook: pre, QueryStr: long, JobName: longJob, PreTimeMs: 100})

	if _, ok, err := s.Lookup(ctx, "hs1:10000", "never"); ok || err != nil {
		t.Errorf("Lookup of a missing row: %v, %v", ok, err)
	}
}
