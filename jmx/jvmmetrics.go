package jmx

import (
	"encoding/json"
	"runtime"
	"runtime/metrics"
	"time"
)

// Runtime is what a JvmMetrics bean reports of the Go runtime.
type Runtime struct {
	// HeapUsedBytes is the memory of heap objects, live or not yet swept
	// (/memory/classes/heap/objects:bytes).
	HeapUsedBytes uint64
	// HeapCommittedBytes is the heap memory the runtime holds from the
	// OS: objects, fragmentation and free spans not yet released
	// (/memory/classes/heap/{objects,unused,free}:bytes).
	HeapCommittedBytes uint64
	// GCCycles is the number of completed GC cycles
	// (/gc/cycles/total:gc-cycles).
	GCCycles uint64
	// GCPause is the total stop-the-world GC pause time
	// (runtime.MemStats.PauseTotalNs).
	GCPause time.Duration
	// Goroutines by scheduler state (/sched/goroutines/*:goroutines).
	Running, Runnable, NotInGo, Waiting uint64
}

var runtimeSamples = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/gc/cycles/total:gc-cycles",
	"/sched/goroutines/running:goroutines",
	"/sched/goroutines/runnable:goroutines",
	"/sched/goroutines/not-in-go:goroutines",
	"/sched/goroutines/waiting:goroutines",
}

// ReadRuntime reads the Go runtime's figures now. It stops the world
// briefly (runtime.ReadMemStats), as reading the JVM's MXBeans does not:
// call it once per /jmx request, not on a hot path.
func ReadRuntime() Runtime {
	samples := make([]metrics.Sample, len(runtimeSamples))
	for i, name := range runtimeSamples {
		samples[i].Name = name
	}
	metrics.Read(samples)
	v := func(i int) uint64 {
		if samples[i].Value.Kind() != metrics.KindUint64 {
			return 0 // not in this Go release
		}
		return samples[i].Value.Uint64()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return Runtime{
		HeapUsedBytes:      v(0),
		HeapCommittedBytes: v(0) + v(1) + v(2),
		GCCycles:           v(3),
		GCPause:            time.Duration(ms.PauseTotalNs),
		Running:            v(4),
		Runnable:           v(5),
		NotInGo:            v(6),
		Waiting:            v(7),
	}
}

// JvmMetrics is the metrics2 JvmMetrics record (JvmMetrics.getMetrics) of
// a Hadoop daemon, Hadoop:service=SERVICE,name=JvmMetrics, filled from the
// Go runtime rt under Hadoop's names where the meaning carries over.
// service is the daemon's tag.ProcessName too ("NameNode", "DataNode"):
// Netdata's hdfs collector requires this bean (modelerType JvmMetrics,
// tag.ProcessName NameNode or DataNode) before it reads anything.
//
//   - tag.Context "jvm", tag.ProcessName service, tag.SessionId null
//     (Hadoop's daemons pass none), tag.Hostname hostname unless empty.
//   - MemHeapUsedM, MemHeapCommittedM: HeapUsedBytes and
//     HeapCommittedBytes in MiB, as Java floats (bytes / 1048576f).
//   - MemHeapMaxM: -1.0, Hadoop's MEMORY_MAX_UNLIMITED_MB: a Go heap has
//     no maximum (GOMEMLIMIT is a soft goal for all memory, not a bound).
//   - GcCount: GC cycles; GcTimeMillis: total stop-the-world pause in
//     whole milliseconds (Go's concurrent marking does not stop the
//     program, so it is not counted).
//   - ThreadsRunnable: running + runnable + not-in-go goroutines (a Java
//     thread in native code is RUNNABLE too); ThreadsWaiting: waiting
//     goroutines (blocked on a channel, lock, timer or the network).
//
// Left out, since Go has no such figure: non-heap memory, MemMaxM,
// ThreadsNew, ThreadsBlocked, ThreadsTimedWaiting (Go does not tell a
// timed wait from a wait, nor a lock from a channel), ThreadsTerminated,
// the log event counters and the pause monitor's counters.
func JvmMetrics(service, hostname string, rt Runtime) Bean {
	attrs := []Attr{
		{Name: "tag.Context", Value: "jvm"},
		{Name: "tag.ProcessName", Value: service},
		{Name: "tag.SessionId", Value: nil},
	}
	if hostname != "" {
		attrs = append(attrs, Attr{Name: "tag.Hostname", Value: hostname})
	}
	attrs = append(attrs,
		Attr{Name: "MemHeapUsedM", Value: javaFloatMiB(rt.HeapUsedBytes)},
		Attr{Name: "MemHeapCommittedM", Value: javaFloatMiB(rt.HeapCommittedBytes)},
		Attr{Name: "MemHeapMaxM", Value: javaFloat(-1)},
		Attr{Name: "GcCount", Value: rt.GCCycles},
		Attr{Name: "GcTimeMillis", Value: rt.GCPause.Milliseconds()},
		Attr{Name: "ThreadsRunnable", Value: rt.Running + rt.Runnable + rt.NotInGo},
		Attr{Name: "ThreadsWaiting", Value: rt.Waiting},
	)
	return Bean{Name: "Hadoop:service=" + service + ",name=JvmMetrics", ModelerType: "JvmMetrics", Attrs: attrs}
}

// javaFloatMiB is bytes in MiB as JvmMetrics computes it: a long divided
// by the float 1024*1024, written as Java's Float.toString.
func javaFloatMiB(bytes uint64) json.Number {
	return javaFloat(float32(bytes) / (1 << 20))
}

// javaFloat is f as Jackson writes a Java float.
func javaFloat(f float32) json.Number {
	b, err := MarshalJackson(f)
	if err != nil {
		panic("BUG: jmx: encode a float: " + err.Error())
	}
	return json.Number(b)
}
