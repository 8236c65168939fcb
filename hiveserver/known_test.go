package hiveserver

import (
	"context"
	"strings"
	"testing"
)

// Under KnownServersOnly an event of a HiveServer that no source names is
// refused with 403, stored nowhere and counted; those of known servers
// are taken.
func TestSendHandlerKnownServersOnly(t *testing.T) {
	s := &MemoryStore{}
	reg := Static{"hs2:10000"}
	p := openPicker(t, s, Config{KnownServersOnly: true, Servers: []string{"hs1:10000"}, Sources: []Source{reg}})
	h := p.SendHandler()
	send := func(server string) (int, string) {
		w := post(h, formType, ev(server, PreExec, "q-"+server, "j", at(0)).Form().Encode())
		return w.Code, w.Body.String()
	}
	for _, known := range []string{"hs1:10000", "hs2:10000"} {
		if code, body := send(known); code != 200 {
			t.Fatalf("event of known %s: %d %s", known, code, body)
		}
	}
	code, body := send("attacker.example.com:10000")
	if code != 403 || !strings.HasPrefix(body, `{"error":"HiveServer attacker.example.com:10000 is not known`) {
		t.Fatalf("event of an unknown HiveServer: %d %s", code, body)
	}
	if _, ok, _ := s.Lookup(context.Background(), "attacker.example.com:10000", "q-attacker.example.com:10000"); ok {
		t.Fatal("the refused event was stored")
	}
	if c := p.Counters(); c.EventsRefused != 1 || c.Events != 2 {
		t.Fatalf("counters %+v, want 1 refused and 2 stored", c)
	}
	for _, st := range p.Servers(t0, nil) {
		if st.Server == "attacker.example.com:10000" {
			t.Fatal("the refused HiveServer is listed")
		}
	}

	// Without the option the same event is taken, as before.
	open := openPicker(t, &MemoryStore{}, Config{})
	if w := post(open.SendHandler(), formType, ev("attacker.example.com:10000", PreExec, "q", "j", at(0)).Form().Encode()); w.Code != 200 {
		t.Fatalf("event without KnownServersOnly: %d %s", w.Code, w.Body)
	}
}
