package reports

import "testing"

func TestSplitDiskID(t *testing.T) {
	f := func(id, node, volume string) {
		t.Helper()
		if n, v := SplitDiskID(id); n != node || v != volume {
			t.Fatalf("SplitDiskID(%q) = %q, %q", id, n, v)
		}
	}
	f("10.0.0.1:9866:/data/1", "10.0.0.1:9866", "/data/1")
	f("h:1:C:/x:y", "h:1", "C:/x:y")
	f("[::1]:9866:/d", "[::1]:9866", "/d")
	f("nothing", "nothing", "")
	f("h:1", "h:1", "")
}
