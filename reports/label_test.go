package reports

import "testing"

func TestQuoteLabel(t *testing.T) {
	f := func(v, want string) {
		t.Helper()
		if got := QuoteLabel(v); got != want {
			t.Fatalf("QuoteLabel(%q) = %s, want %s", v, got, want)
		}
	}
	f("", `""`)
	f("10.0.0.5:9866", `"10.0.0.5:9866"`)
	f(`C:\data "1"`, `"C:\\data \"1\""`)
	f("a\nb", `"a\nb"`)
	f("tab\there é", "\"tab\there é\"") // nothing else is escaped
}
