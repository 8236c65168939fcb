package discovery

import (
	"log/slog"
	"slices"
	"testing"
)

const fakeSession = 0x51

func testPublisherConfig(eligible func() []string) PublisherConfig {
	cfg := DefaultPublisherConfig()
	cfg.Servers = []string{"127.0.0.1:2181"}
	cfg.Namespace = "pub"
	cfg.Eligible = eligible
	cfg.Logger = slog.New(slog.DiscardHandler)
	return cfg
}

// recordsOf builds the records of servers as a Publisher would.
func recordsOf(t testing.TB, servers ...string) []record {
	t.Helper()
	var out []record
	for _, s := range servers {
		prefix, data, err := Record(s, nil, DefaultVersion, false)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, record{s, prefix, data})
	}
	return out
}

func znodeOf(t testing.TB, server string, seq string) string {
	t.Helper()
	prefix, _, err := Record(server, nil, DefaultVersion, false)
	if err != nil {
		t.Fatal(err)
	}
	return "/pub/" + prefix + seq
}

func TestReconcile(t *testing.T) {
	z := newFakeZK(fakeSession)
	p := newPublisher(testPublisherConfig(nil), z)
	step := func(what string, want []record, wantWrites ...string) {
		t.Helper()
		if _, err := p.reconcile(want); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := z.takeWrites(); !slices.Equal(got, wantWrites) {
			t.Errorf("%s: writes\n %q\nwant\n %q", what, got, wantWrites)
		}
	}
	a, b := "hs1:10000", "hs2:10000"

	step("nothing wanted, no namespace", nil)
	step("first publish creates the namespace", recordsOf(t, a),
		"create /pub", "create "+znodeOf(t, a, "0000000000"))
	step("the same again writes nothing", recordsOf(t, a))
	// Create the new one, then delete the old one: never empty.
	step("switch", recordsOf(t, b),
		"create "+znodeOf(t, b, "0000000001"), "delete "+znodeOf(t, a, "0000000000"))
	step("two", recordsOf(t, b, a), "create "+znodeOf(t, a, "0000000002"))

	// Another replica's znodes (another session) are not ours: left
	// alone, and not counted as published.
	z.put(znodeOf(t, a, "0000000100"), recordsOf(t, a)[0].data, 0x99)
	step("another replica's znode", recordsOf(t, b, a))
	step("another replica's znode stays", recordsOf(t, b), "delete "+znodeOf(t, a, "0000000002"))

	// A znode of ours we do not know (a create whose answer was lost), a
	// duplicate, and one with stale data: deleted.
	z.put(znodeOf(t, b, "0000000200"), recordsOf(t, b)[0].data, fakeSession)
	z.put(znodeOf(t, a, "0000000201"), []byte("hs9:1"), fakeSession)
	step("strays of ours", recordsOf(t, b),
		"delete "+znodeOf(t, a, "0000000201"), "delete "+znodeOf(t, b, "0000000200"))

	step("none eligible", nil, "delete "+znodeOf(t, b, "0000000001"))
	if got := z.children("/pub"); len(got) != 1 {
		t.Errorf("left %q, want only the other replica's znode", got)
	}
}

// A failed create leaves the old znode: a switch that fails half-way
// never empties the namespace.
func TestReconcileFailedSwitch(t *testing.T) {
	z := newFakeZK(fakeSession)
	p := newPublisher(testPublisherConfig(nil), z)
	a, b := "hs1:10000", "hs2:10000"
	if _, err := p.reconcile(recordsOf(t, a)); err != nil {
		t.Fatal(err)
	}
	z.takeWrites()
	z.failCreate = "hs2"
	if _, err := p.reconcile(recordsOf(t, b)); err == nil {
		t.Fatal("reconcile with a failing create: no error")
	}
	if got := z.takeWrites(); len(got) != 0 {
		t.Errorf("writes after a failed create: %q", got)
	}
	z.failCreate = ""
	if _, err := p.reconcile(recordsOf(t, b)); err != nil {
		t.Fatal(err)
	}
	want := []string{"create " + znodeOf(t, b, "0000000001"), "delete " + znodeOf(t, a, "0000000000")}
	if got := z.takeWrites(); !slices.Equal(got, want) {
		t.Errorf("retry writes %q, want %q", got, want)
	}
}

// A record matches a znode by name up to ZooKeeper's counter and by data.
func TestSameRecord(t *testing.T) {
	r := recordsOf(t, "hs1:10000")[0]
	f := func(child string, data []byte, want bool) {
		t.Helper()
		if got := sameRecord(child, data, r.prefix, r.data); got != want {
			t.Errorf("sameRecord(%q, %q) = %v, want %v", child, data, got, want)
		}
	}
	f(r.prefix+"0000000001", r.data, true)
	f(r.prefix+"-000000001", r.data, true)
	f(r.prefix, r.data, false)
	f(r.prefix+"0000000001x", r.data, false)
	f(r.prefix+"0000000001", []byte("hs1:10000"), false)
	f("serverUri=hs1:10000;version=3;sequence=0000000001", r.data, false)
}
