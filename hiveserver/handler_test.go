package hiveserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func post(h http.Handler, contentType, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, SendPath, strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

const formType = "application/x-www-form-urlencoded"

func TestSendHandlerRefuses(t *testing.T) {
	s := &MemoryStore{}
	p := loadPicker(t, s, Config{})
	stop := runPicker(t, p)
	h := p.SendHandler()
	good := ev("hs:1", PreExec, "q1", "j", at(0)).Form().Encode()
	f := func(name string, w *httptest.ResponseRecorder, code int, wantErr string) {
		t.Helper()
		body := w.Body.String()
		if w.Code != code || !strings.HasPrefix(body, `{"error":"`) || !strings.Contains(body, wantErr) ||
			strings.Count(body, "\n") != 1 {
			t.Errorf("%s: %d %q; want %d with %q on one line", name, w.Code, body, code, wantErr)
		}
		if n := countRows(s); n != 0 {
			t.Errorf("%s: %d rows stored", name, n)
		}
	}
	f("GET", func() *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, SendPath, nil))
		if w.Header().Get("Allow") != "POST" {
			t.Errorf("405 without Allow: POST")
		}
		return w
	}(), 405, "use POST")
	f("JSON body", post(h, "application/json", `{"server":"hs:1"}`), 400, "want a form body")
	f("no content type", post(h, "", good), 400, "want a form body")
	f("missing field", post(h, formType, strings.Replace(good, "queryId=q1", "x=1", 1)), 400, "missing field queryId")
	f("unknown hook", post(h, formType, strings.Replace(good, "PRE_EXEC_HOOK", "NOPE", 1)), 400, "field hook")
	f("bad timestamp", post(h, formType, strings.Replace(good, "timestamp=", "timestamp=x", 1)), 400, "field timestamp")
	f("bad form", post(h, formType, good+"&%zz"), 400, "read form")
	p.maxSendBytes = 1 << 10
	big := "server=hs:1&queryStr=" + strings.Repeat("a", 1<<10)
	f("too large", post(h, formType, big), 413, "body over")

	if w := post(h, formType, good); w.Code != 200 {
		t.Fatalf("good event: %d %s", w.Code, w.Body)
	}
	if n := countRows(s); n != 1 {
		t.Fatalf("%d rows after a good event", n)
	}
	stop()
	if w := post(h, formType, good); w.Code != 503 || !strings.Contains(w.Body.String(), "closed") {
		t.Errorf("closed picker: %d %s", w.Code, w.Body)
	}
}

func TestServersAndPickHandlers(t *testing.T) {
	now := t0.Add(time.Hour)
	p := openPicker(t, &MemoryStore{}, Config{
		Servers: []string{"b.example:10000"},
		Now:     func() time.Time { return now },
	})
	ingest(t, p, ev("a.example:10000", PreExec, "q1", "", now.Add(-time.Second).UnixMilli()))
	var slow []string
	calls := 0
	slowHosts := func() []string { calls++; return slow }
	servers, pick := p.ServersHandler(slowHosts), p.PickHandler(slowHosts)
	get := func(h http.Handler, method string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, "/", nil))
		return w.Code, w.Body.String()
	}
	f := func(name string, h http.Handler, method string, code int, want string) {
		t.Helper()
		gotCode, got := get(h, method)
		if gotCode != code || got != want+"\n" {
			t.Errorf("%s: %d %s\nwant %d %s", name, gotCode, got, code, want)
		}
	}
	f("list", servers, "GET", 200,
		`[{"server":"a.example:10000","running":1,"load":60,"slowHost":false},{"server":"b.example:10000","running":0,"load":0,"slowHost":false}]`)
	f("pick", pick, "GET", 200, `{"server":"b.example:10000","running":0,"load":0}`)
	slow = []string{"b.example"}
	f("list with a slow host", servers, "GET", 200,
		`[{"server":"a.example:10000","running":1,"load":60,"slowHost":false},{"server":"b.example:10000","running":0,"load":0,"slowHost":true}]`)
	f("pick avoids the slow host", pick, "GET", 200, `{"server":"a.example:10000","running":1,"load":60}`)
	slow = []string{"a.example", "b.example"}
	f("none eligible", pick, "GET", 503,
		`{"error":"no eligible HiveServer: all 2 known are on slow hosts (a.example:10000, b.example:10000)"}`)
	f("POST to the list", servers, "POST", 405, `{"error":"method POST not allowed, use GET"}`)
	f("POST to pick", pick, "POST", 405, `{"error":"method POST not allowed, use GET"}`)
	if calls != 5 {
		t.Errorf("slowHosts called %d times, want once per GET (5)", calls)
	}
}
