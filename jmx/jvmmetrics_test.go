package jmx

import (
	"runtime"
	"testing"
)

// ReadRuntime reads the running program: a heap in use, no more than is
// committed, this goroutine running, and the GC forced here counted; the
// bean carries those figures under Hadoop's names.
func TestReadRuntime(t *testing.T) {
	runtime.GC()
	rt := ReadRuntime()
	if rt.HeapUsedBytes == 0 || rt.HeapCommittedBytes < rt.HeapUsedBytes {
		t.Fatalf("heap used %d, committed %d", rt.HeapUsedBytes, rt.HeapCommittedBytes)
	}
	if rt.Running < 1 || rt.GCCycles < 1 || rt.GCPause <= 0 {
		t.Fatalf("runtime %+v: want a running goroutine, a GC cycle and its pause", rt)
	}
	b := JvmMetrics("DataNode", "dn1.example.com", rt)
	if b.Name != "Hadoop:service=DataNode,name=JvmMetrics" || b.ModelerType != "JvmMetrics" {
		t.Fatalf("bean %q, modelerType %q", b.Name, b.ModelerType)
	}
	for attr, want := range map[string]any{"GcCount": rt.GCCycles, "tag.ProcessName": "DataNode", "tag.Hostname": "dn1.example.com"} {
		if v, _ := b.Attr(attr); v != want {
			t.Errorf("%s = %v, want %v", attr, v, want)
		}
	}
	if _, ok := JvmMetrics("NameNode", "", rt).Attr("tag.Hostname"); ok {
		t.Error("tag.Hostname written without a host name")
	}
}
