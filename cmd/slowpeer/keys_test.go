package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/namenode"
)

// probeConf is a Config with a field of every kind a key sets.
type probeConf struct {
	secs, ms, lowMs time.Duration
	n               int
	n64, size       int64
	share, ratio    float64
}

var probeKeys = keys[probeConf]{
	{name: "t.secs", unit: seconds, field: func(c *probeConf) any { return &c.secs }},
	{name: "t.ms", unit: millis, max: int64(time.Hour), field: func(c *probeConf) any { return &c.ms }},
	{name: "t.low.ms", unit: decimalMillis, min: 0, max: int64(time.Second), field: func(c *probeConf) any { return &c.lowMs }},
	{name: "t.n", unit: count, min: 0, max: 100, field: func(c *probeConf) any { return &c.n }},
	{name: "t.n64", unit: count, min: 1, max: 1 << 40, field: func(c *probeConf) any { return &c.n64 }},
	{name: "t.size", unit: byteSize, min: 1, max: 1 << 30, field: func(c *probeConf) any { return &c.size }},
	{name: "t.share", unit: fraction, field: func(c *probeConf) any { return &c.share }},
	{name: "t.ratio", unit: decimal, min: 1, max: 10, field: func(c *probeConf) any { return &c.ratio }},
}

// Reference: Configuration.getTimeDuration, getInt and getLongBytes.
func TestKeysApply(t *testing.T) {
	def := probeConf{secs: time.Second, ms: time.Minute, lowMs: 5 * time.Millisecond, n: 7, n64: 8, size: 9, share: 0.5, ratio: 3}
	f := func(conf hadoopConf, want probeConf) {
		t.Helper()
		got := def
		if err := probeKeys.apply(conf, &got); err != nil {
			t.Fatalf("apply(%v): %v", conf, err)
		}
		if got != want {
			t.Fatalf("apply(%v) = %+v, want %+v", conf, got, want)
		}
	}
	f(hadoopConf{}, def)
	f(hadoopConf{"t.secs": "  ", "t.other": "x"}, def) // blank is unset; unknown keys are not ours
	w := def
	w.secs, w.ms, w.lowMs = 3*time.Second, 3*time.Millisecond, 2500*time.Microsecond
	f(hadoopConf{"t.secs": "3", "t.ms": " 3 ", "t.low.ms": "2.5"}, w)
	w = def
	w.secs, w.ms = 500*time.Millisecond, 30*time.Minute
	f(hadoopConf{"t.secs": "500ms", "t.ms": "30M"}, w)
	w = def
	w.n, w.n64, w.size = 16, 1<<40, 64<<10
	f(hadoopConf{"t.n": "0x10", "t.n64": "1099511627776", "t.size": "64k"}, w)
	w = def
	w.n, w.lowMs, w.size = 0, 0, 2<<20
	f(hadoopConf{"t.n": "0", "t.low.ms": "0", "t.size": "2M"}, w)
	w = def
	w.share = 1
	f(hadoopConf{"t.share": "1"}, w)
	w.share = 0.25
	f(hadoopConf{"t.share": "0.25"}, w)
	w = def
	w.ratio = 2.5
	f(hadoopConf{"t.ratio": "2.5"}, w)

	bad := func(key, value, want string) {
		t.Helper()
		got := def
		err := probeKeys.apply(hadoopConf{key: value}, &got)
		if err == nil || !strings.Contains(err.Error(), "configuration "+key+": ") || !strings.Contains(err.Error(), want) {
			t.Fatalf("apply %s=%q: %v, want an error naming the key and saying %q", key, value, err, want)
		}
		if got != def {
			t.Fatalf("apply %s=%q changed the config: %+v", key, value, got)
		}
	}
	bad("t.secs", "abc", `"abc" is not a whole number`)
	bad("t.secs", "0", `"0" must be more than zero`)
	bad("t.secs", "-3s", `"-3s" is negative`)
	bad("t.secs", "1.5h", `"1.5h"`)
	bad("t.ms", "2h", `"2h" is more than 1h0m0s`)
	bad("t.low.ms", "-3", `"-3" is not a finite number ≥ 0`)
	bad("t.low.ms", "NaN", `"NaN"`)
	bad("t.low.ms", "1e308", `"1e308" ms is outside`)
	bad("t.low.ms", "5ms", `"5ms"`)
	bad("t.n", "4.2", `"4.2" is not a whole number`)
	bad("t.n", "101", "101 is outside [0, 100]")
	bad("t.n", "-1", "-1 is outside [0, 100]")
	bad("t.n64", "0", "0 is outside [1, 1099511627776]")
	bad("t.size", "64kb", `"64kb" is not a byte count`)
	bad("t.size", "2g", "2147483648 is outside [1, 1073741824]")
	bad("t.size", "9999999999e", `"9999999999e"`)
	for _, v := range []string{"0", "-0.5", "1.01", "NaN", "30%", "Inf"} {
		bad("t.share", v, `"`+v+`" is not a number more than 0 and at most 1`)
	}
	for _, v := range []string{"1", "0.5", "10.5", "NaN", "Inf", "3x"} {
		bad("t.ratio", v, `"`+v+`" is not a number more than 1 and at most 10`)
	}
}

func TestFormatDuration(t *testing.T) {
	f := func(d time.Duration, want string) {
		t.Helper()
		if got := formatDuration(d); got != want {
			t.Fatalf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
	f(0, "0")
	f(3*time.Second, "3s")
	f(30*time.Minute, "30m")
	f(24*time.Hour, "24h")
	f(90*time.Second, "90s")
	f(1500*time.Millisecond, "1500ms")
	f(7, "7ns")
}

// checkTable checks one daemon's table against its DefaultConfig and
// DefaultLocalConfig: each key once, each field of the type its unit
// needs, each default and preset value within the bounds and written so
// that it reads back exactly.
func checkTable[C any](t *testing.T, ks keys[C], configs ...C) {
	t.Helper()
	seen := map[string]bool{}
	for _, k := range ks {
		if seen[k.name] {
			t.Errorf("%s is in the table twice", k.name)
		}
		seen[k.name] = true
		for i, cfg := range configs {
			if k.note != "" && i == 0 {
				continue // the default depends on a flag
			}
			v := k.format(&cfg)
			var zero C
			if err := k.set(&zero, v); err != nil {
				t.Errorf("%s: %s does not read back: %v", k.name, v, err)
				continue
			}
			if got := k.format(&zero); got != v {
				t.Errorf("%s: %s reads back as %s", k.name, v, got)
			}
		}
	}
}

func TestKeyTables(t *testing.T) {
	checkTable(t, datanodeKeys, datanode.DefaultConfig(), datanode.DefaultLocalConfig())
	checkTable(t, namenodeKeys, namenode.DefaultConfig(), namenode.DefaultLocalConfig())
	checkTable(t, hiveserverKeys, hiveserver.DefaultConfig())
	// A key both daemons read has one default, and one local value.
	shared := func(dn, nn []keyDefault) {
		t.Helper()
		for _, d := range dn {
			for _, n := range nn {
				if d.name == n.name && d.value != n.value {
					t.Errorf("%s: the agent says %s, the service %s", d.name, d.value, n.value)
				}
			}
		}
	}
	shared(datanodeKeys.defaults(datanode.DefaultConfig()), namenodeKeys.defaults(namenode.DefaultConfig()))
	shared(datanodeKeys.defaults(datanode.DefaultLocalConfig()), namenodeKeys.defaults(namenode.DefaultLocalConfig()))
}

// defines returns the -D options that turn def into cfg, through ks: how
// the end-to-end tests give their processes the local presets.
func defines[C any](ks keys[C], cfg, def C) []string {
	var args []string
	for _, k := range ks {
		if v := k.format(&cfg); v != k.format(&def) {
			args = append(args, "-D", fmt.Sprintf("%s=%s", k.name, v))
		}
	}
	return args
}

func TestDefines(t *testing.T) {
	local := datanode.DefaultLocalConfig()
	args := defines(datanodeKeys, local, datanode.DefaultConfig())
	conf := hadoopConf{}
	for i := 1; i < len(args); i += 2 {
		k, v, _ := strings.Cut(args[i], "=")
		conf[k] = v
	}
	got := datanode.DefaultConfig()
	if err := datanodeConf(conf, &got); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(local) {
		t.Fatalf("%v give %+v, want %+v", args, got, local)
	}
	if len(defines(namenodeKeys, namenode.DefaultConfig(), namenode.DefaultConfig())) != 0 {
		t.Fatal("defaults need -D options")
	}
}

// FuzzKeys: whatever the value of whatever key of the daemons, applying it
// is an error naming the key and the value, or sets a value that format
// writes so that it reads back the same.
func FuzzKeys(f *testing.F) {
	f.Add(0, "3")
	f.Add(4, "2.5")
	f.Add(9, "64k")
	f.Add(15, "0x10")
	f.Add(17, "9223372036854775807ns")
	f.Fuzz(func(t *testing.T, i int, value string) {
		if strings.TrimSpace(value) == "" {
			return // unset: the default stays, which need not be writable (0: never)
		}
		n := len(datanodeKeys) + len(namenodeKeys) + len(hiveserverKeys)
		switch i = (i%n + n) % n; {
		case i < len(datanodeKeys):
			roundTrip(t, datanodeKeys[i], datanode.DefaultConfig, value)
		case i < len(datanodeKeys)+len(namenodeKeys):
			roundTrip(t, namenodeKeys[i-len(datanodeKeys)], namenode.DefaultConfig, value)
		default:
			roundTrip(t, hiveserverKeys[i-len(datanodeKeys)-len(namenodeKeys)], hiveserver.DefaultConfig, value)
		}
	})
}

func roundTrip[C any](t *testing.T, k key[C], def func() C, value string) {
	t.Helper()
	cfg, again := def(), def()
	err := keys[C]{k}.apply(hadoopConf{k.name: value}, &cfg)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "configuration "+k.name+": ") {
			t.Fatalf("%s=%q: %v does not name the key", k.name, value, err)
		}
		return
	}
	wrote := k.format(&cfg)
	if err := k.set(&again, wrote); err != nil {
		t.Fatalf("%s=%q: set, written %s, which does not read back: %v", k.name, value, wrote, err)
	}
	if read := k.format(&again); read != wrote {
		t.Fatalf("%s=%q: set, written %s, read back as %s", k.name, value, wrote, read)
	}
}
