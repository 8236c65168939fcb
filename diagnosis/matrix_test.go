package diagnosis

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func newMatrix(t testing.TB, edit func(*Config)) *Matrix {
	t.Helper()
	cfg := DefaultConfig()
	if edit != nil {
		edit(&cfg)
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAddRejects(t *testing.T) {
	m := newMatrix(t, nil)
	f := func(reporter, peer string, ms float64, samples int, want string) {
		t.Helper()
		err := m.Add(reporter, peer, ms, samples, t0)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Add(%q, %q, %v, %d) = %v, want an error with %q", reporter, peer, ms, samples, err, want)
		}
	}
	f("a", "b:1", 1, 100, `node id "a" is not host:port`)
	f("a:1", ":1", 1, 100, `node id ":1" is not host:port`)
	f("a:1", "a:1", 1, 100, "cannot measure itself")
	f("a:1", "b:1", -1, 100, "not a finite number ≥ 0")
	f("a:1", "b:1", math.NaN(), 100, "not a finite number ≥ 0")
	f("a:1", "b:1", math.Inf(1), 100, "not a finite number ≥ 0")
	f("a:1", "b:1", 1, -1, "negative sample count")
	if m.Len() != 0 || m.Reporters() != 0 {
		t.Errorf("rejected cells were kept: %d cells, %d reporters", m.Len(), m.Reporters())
	}
}

func TestAddReplacesNewer(t *testing.T) {
	m := newMatrix(t, nil)
	add := func(ms float64, at time.Time) {
		t.Helper()
		if err := m.Add("a:1", "b:1", ms, 100, at); err != nil {
			t.Fatal(err)
		}
	}
	add(1, t0)
	add(2, t0.Add(time.Second))
	add(3, t0) // older than what is held: ignored
	if m.Len() != 1 {
		t.Fatalf("%d cells, want 1", m.Len())
	}
	if got := m.rows[0].cells[0].latencyMs; got != 2 {
		t.Errorf("latency %v, want the newest, 2", got)
	}
}

func TestBounds(t *testing.T) {
	m := newMatrix(t, func(c *Config) { c.MaxReporters, c.MaxPeers = 2, 3 })
	for p := range 5 { // five peers, one second apart: the last three stay
		if err := m.Add("a:1", nodeName(p), 1, 100, t0.Add(time.Duration(p)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if m.Len() != 3 {
		t.Fatalf("%d cells, want MaxPeers = 3", m.Len())
	}
	for _, c := range m.rows[0].cells {
		if name := m.nodes.name[c.peer]; name == nodeName(0) || name == nodeName(1) {
			t.Errorf("oldest cell %s kept", name)
		}
	}
	if _, ok := m.nodes.id(nodeName(0)); ok {
		t.Error("a replaced peer is still interned")
	}
	if err := m.Add("b:1", "a:1", 1, 100, t0); err != nil {
		t.Fatal(err)
	}
	err := m.Add("c:1", "a:1", 1, 100, t0)
	if !errors.Is(err, ErrFull) {
		t.Fatalf("third reporter: %v, want ErrFull", err)
	}
	if err := m.Add("b:1", "c:1", 1, 100, t0); err != nil {
		t.Errorf("a known reporter must still add: %v", err)
	}
}

func TestExpire(t *testing.T) {
	m := newMatrix(t, nil)
	maxAge := m.Config().MaxAge
	for round := range 20 { // churn: every round new names, the old expire
		at := t0.Add(time.Duration(round) * maxAge)
		m.Expire(at)
		for i := range 10 {
			for j := range 10 {
				if i != j {
					if err := m.Add(nodeName(100*round+i), nodeName(100*round+j), 1, 100, at); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	if m.Len() != 90 || m.Reporters() != 10 {
		t.Errorf("%d cells, %d reporters, want the last round's 90 and 10", m.Len(), m.Reporters())
	}
	if n := m.nodes.size(); n > 20 {
		t.Errorf("name table of %d ids after churn, want ids reused (≤ 20)", n)
	}
	end := t0.Add(19 * maxAge)
	m.Expire(end.Add(maxAge - 1))
	if m.Len() != 90 {
		t.Errorf("cells expired before MaxAge: %d left", m.Len())
	}
	m.Expire(end.Add(maxAge))
	if m.Len() != 0 || m.Reporters() != 0 || len(m.nodes.ids) != 0 {
		t.Errorf("after MaxAge: %d cells, %d reporters, %d names", m.Len(), m.Reporters(), len(m.nodes.ids))
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	f := func(edit func(*Config), want string) {
		t.Helper()
		c := DefaultConfig()
		edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want an error with %q", err, want)
		}
		if _, err := New(c); err == nil {
			t.Errorf("New accepted a config Validate refuses")
		}
	}
	f(func(c *Config) { c.MaxAge = 0 }, "max age")
	f(func(c *Config) { c.MinSamples = -1 }, "min samples")
	f(func(c *Config) { c.MinPairs = 0 }, "min pairs")
	f(func(c *Config) { c.SlowFactor = 1 }, "slow factor")
	f(func(c *Config) { c.SlowFactor = math.NaN() }, "slow factor")
	f(func(c *Config) { c.FloorMs = math.Inf(1) }, "floor")
	f(func(c *Config) { c.LinkDeviations = -1 }, "link deviations")
	f(func(c *Config) { c.RackFraction = 0 }, "rack fraction")
	f(func(c *Config) { c.RackMinNodes = 0 }, "rack min nodes")
	f(func(c *Config) { c.MaxPeers = 0 }, "max peers")
	f(func(c *Config) { c.MaxReporters, c.MaxPeers = 1<<20, 1<<10 }, "at most")
}

// fullMatrix returns a Matrix of n nodes that measured each other.
func fullMatrix(t *testing.T, n int) *Matrix {
	t.Helper()
	m := newMatrix(t, nil)
	for i := range n {
		for j := range n {
			if i != j {
				if err := m.Add(nodeName(i), nodeName(j), 1, 100, t0); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return m
}

func TestForget(t *testing.T) {
	m := fullMatrix(t, 3)
	m.Forget(nodeName(0))
	m.Forget(nodeName(0))
	m.Forget("unknown:1")
	if m.Len() != 4 || m.Reporters() != 2 {
		t.Errorf("%d cells, %d reporters, want 4 and 2", m.Len(), m.Reporters())
	}
	if _, ok := m.nodes.id(nodeName(0)); !ok {
		t.Error("node 0 is still a peer of the others, yet forgotten")
	}
	m.Forget(nodeName(1))
	m.Forget(nodeName(2))
	if m.Len() != 0 || len(m.nodes.ids) != 0 {
		t.Errorf("%d cells, %d names left", m.Len(), len(m.nodes.ids))
	}
}

func TestForgetNode(t *testing.T) {
	m := fullMatrix(t, 3)
	// Node 3 is measured by node 1 only: that row keeps its other cell.
	if err := m.Add(nodeName(2), nodeName(3), 1, 100, t0); err != nil {
		t.Fatal(err)
	}
	m.ForgetNode(nodeName(0))
	m.ForgetNode("unknown:1")
	if m.Len() != 3 || m.Reporters() != 2 {
		t.Errorf("%d cells, %d reporters, want 3 (1→2, 2→1, 2→3) and 2", m.Len(), m.Reporters())
	}
	if _, ok := m.nodes.id(nodeName(0)); ok {
		t.Error("node 0 is still named after ForgetNode")
	}
	m.ForgetNode(nodeName(1)) // 2's row keeps 2→3; 1's row goes
	m.ForgetNode(nodeName(3)) // 2's row is empty now, and goes
	if m.Len() != 0 || m.Reporters() != 0 || len(m.nodes.ids) != 0 {
		t.Errorf("%d cells, %d reporters, %d names left", m.Len(), m.Reporters(), len(m.nodes.ids))
	}
}
