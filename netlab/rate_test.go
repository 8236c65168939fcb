package netlab

import "testing"

func TestParseRate(t *testing.T) {
	f := func(s string, want uint64) {
		t.Helper()
		got, err := ParseRate(s)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	f("20mbit", 20_000_000)
	f(" 100Mbit ", 100_000_000)
	f("1gbit", 1_000_000_000)
	f("500kbit", 500_000)
	f("1.5mbit", 1_500_000)
	f("2mbps", 16_000_000)
	f("64000", 64_000)
	for _, bad := range []string{"", "fast", "-1mbit", "0mbit", "20 mbit x", "20furlongs", "2tbit", "1e3mbit", "."} {
		if v, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) = %d, want an error", bad, v)
		}
	}
}

func TestFormatRate(t *testing.T) {
	for bps, want := range map[uint64]string{20_000_000: "20mbit", 1e9: "1gbit", 1_500_000: "1500kbit", 999: "999bit"} {
		if got := FormatRate(bps); got != want {
			t.Errorf("FormatRate(%d) = %q, want %q", bps, got, want)
		}
		if back, err := ParseRate(FormatRate(bps)); err != nil || back != bps {
			t.Errorf("ParseRate(FormatRate(%d)) = %d, %v", bps, back, err)
		}
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"20mbit", "1.5gbps", "", "x", "9999999999999999gbit"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate(s)
		if err != nil {
			return
		}
		if v == 0 || v > 1e12 {
			t.Fatalf("ParseRate(%q) = %d outside (0, 1tbit]", s, v)
		}
	})
}
