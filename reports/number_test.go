package reports

import (
	"math"
	"strconv"
	"testing"
)

// numberOf reads s whole as one number with a scanner, or fails.
func numberOf(s string) (float64, bool) {
	sc := &scanner{data: []byte(s)}
	f, err := sc.number(fieldPath{peer: -1, field: "x"})
	return f, err == nil && sc.pos == len(s)
}

// The scanner's numbers are strconv.ParseFloat's to the bit, on its fast
// path and past it.
func TestNumberAsStrconv(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "0.0", "-0.000", "1", "12.5", "0.05", "0.000123", "1.50", "100",
		"123456789012345", "1234567890123456", "0.1234567890123456789", "4503599627370495",
		"4503599627370496", "9007199254740993", "1e22", "1e23", "1.5e-7", "2E+3", "3e0",
		"0.0000000000000000000001", "0.00000000000000000000001", "1234567.891",
		"179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
	} {
		got, ok := numberOf(s)
		want, err := strconv.ParseFloat(s, 64)
		if !ok || err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s: got %v (ok %v), strconv %v (%v)", s, got, ok, want, err)
		}
	}
	for _, s := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x10", "1_000", "Inf", "NaN", "1e999"} {
		if f, ok := numberOf(s); ok {
			t.Errorf("%q read as %v, want a refusal", s, f)
		}
	}
}

// FuzzNumber: whatever the scanner reads as a number, strconv reads to
// the same bits.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-12.5", "0.05", "123456789012345678", "1e22", "4.5e-3", "01", "1."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := numberOf(s)
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: got %v, strconv %v (%v)", s, got, want, err)
		}
	})
}
