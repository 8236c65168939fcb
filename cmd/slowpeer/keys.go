package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/netlab"
)

// unit is how a key's value is written: what a bare number means and
// which suffixes it takes.
type unit int

const (
	// seconds is a duration whose bare number is seconds (Hadoop reads
	// dfs.heartbeat.interval with TimeUnit.SECONDS).
	seconds unit = iota + 1
	// millis is a duration whose bare number is milliseconds, as Hadoop
	// reads its other durations.
	millis
	// decimalMillis is a duration written as a plain number of
	// milliseconds, fractions allowed (dfs.datanode.slowpeer.low.threshold.ms).
	decimalMillis
	// count is a whole number, decimal or 0x hexadecimal (Configuration.getInt).
	count
	// byteSize is a number of bytes with Hadoop's binary suffixes: 64k is
	// 65536 (Configuration.getLongBytes).
	byteSize
	// boolean is true or false, in any case (Configuration.getBoolean, which
	// takes anything else for the default; here it is an error).
	boolean
	// text is a string taken as it is written, such as an address.
	text
	// rate is bits per second as tc writes them: 500mbit, 1gbit, 100mbps
	// (bytes), or a bare number of bits (netlab.ParseRate).
	rate
	// fraction is a share: a decimal number more than 0 and at most 1.
	fraction
	// decimal is a decimal number more than min and at most max.
	decimal
	// volumes is a list of a DataNode's volumes as dfs.datanode.data.dir
	// writes them: [SSD]file:///data/1,/data/2 (datanode.ParseDataDirs).
	volumes
)

// key is one configuration key of a daemon whose Config is C: how its
// value is written, its bounds, and the field it sets. The default is the
// field's value in the daemon's DefaultConfig.
type key[C any] struct {
	name string
	unit unit
	// min and max bound a count or a byte size, and a decimalMillis
	// duration (in nanoseconds). A seconds or millis duration is more than
	// zero (or zero, with zero set), and at most max when max is set; the
	// daemon's Validate checks the rest.
	min, max int64
	// zero lets a seconds or millis duration be 0 (no wait at all).
	zero bool
	// field returns the Config field the key sets: a *time.Duration for
	// the duration units, an *int or *int64 for count and byteSize, a
	// *bool for boolean, a *string for text, a *float64 for fraction and
	// decimal.
	field func(*C) any
	// note, when set, says what the default is instead of the field's
	// value in DefaultConfig: a default that depends on a flag.
	note string
}

// keys is the table of the keys one daemon reads.
type keys[C any] []key[C]

// apply reads every key of ks that conf sets into cfg. The first bad value
// is an error naming the key and the value.
func (ks keys[C]) apply(conf hadoopConf, cfg *C) error {
	for _, k := range ks {
		v, ok := conf.value(k.name)
		if !ok {
			continue
		}
		if err := k.set(cfg, v); err != nil {
			return &keyError{key: k.name, err: err}
		}
	}
	return nil
}

// keyError is a bad value of a configuration key.
type keyError struct {
	key string
	err error
}

func (e *keyError) Error() string { return fmt.Sprintf("configuration %s: %v", e.key, e.err) }
func (e *keyError) Unwrap() error { return e.err }

// set parses v and stores it in k's field of cfg.
func (k key[C]) set(cfg *C, v string) error {
	var n int64
	var err error
	switch k.unit {
	case boolean:
		b := strings.ToLower(v)
		if b != "true" && b != "false" {
			return fmt.Errorf("%q is not true or false", v)
		}
		*k.field(cfg).(*bool) = b == "true"
		return nil
	case text:
		*k.field(cfg).(*string) = v
		return nil
	case fraction:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return fmt.Errorf("%q is not a number more than 0 and at most 1", v)
		}
		*k.field(cfg).(*float64) = f
		return nil
	case decimal:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > float64(k.min) && f <= float64(k.max)) {
			return fmt.Errorf("%q is not a number more than %d and at most %d", v, k.min, k.max)
		}
		*k.field(cfg).(*float64) = f
		return nil
	case volumes:
		vols, err := datanode.ParseDataDirs(v)
		if err != nil {
			return err
		}
		*k.field(cfg).(*[]disk.Volume) = vols
		return nil
	case seconds, millis:
		n, err = k.parseDuration(v)
	case decimalMillis:
		n, err = k.parseDecimalMillis(v)
	case count, byteSize:
		n, err = k.parseNumber(v)
	case rate:
		n, err = k.parseRate(v)
	default:
		panic(fmt.Sprintf("BUG: key %s has no unit", k.name))
	}
	if err != nil {
		return err
	}
	switch p := k.field(cfg).(type) {
	case *time.Duration:
		*p = time.Duration(n)
	case *int64:
		*p = n
	case *int:
		*p = int(n) // the bounds keep n within an int
	default:
		panic(fmt.Sprintf("BUG: key %s sets a %T", k.name, p))
	}
	return nil
}

func (k key[C]) parseDuration(v string) (int64, error) {
	bare := time.Millisecond
	if k.unit == seconds {
		bare = time.Second
	}
	d, err := parseHadoopDuration(v, bare)
	switch {
	case err != nil:
		return 0, err
	case d < 0 || d == 0 && !k.zero:
		return 0, fmt.Errorf("%q must be more than zero", v)
	case k.max > 0 && int64(d) > k.max:
		return 0, fmt.Errorf("%q is more than %v", v, time.Duration(k.max))
	}
	return int64(d), nil
}

func (k key[C]) parseDecimalMillis(v string) (int64, error) {
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
		return 0, fmt.Errorf("%q is not a finite number ≥ 0", v)
	}
	ns := ms * float64(time.Millisecond)
	if ns < float64(k.min) || ns > float64(k.max) {
		return 0, fmt.Errorf("%q ms is outside [%v, %v]", v, time.Duration(k.min), time.Duration(k.max))
	}
	return int64(ns), nil
}

func (k key[C]) parseNumber(v string) (int64, error) {
	parse, what := parseCount, "a whole number"
	if k.unit == byteSize {
		parse, what = parseBytes, "a byte count such as 65536 or 64k"
	}
	n, ok := parse(v)
	if !ok {
		return 0, fmt.Errorf("%q is not %s", v, what)
	}
	if n < k.min || n > k.max {
		return 0, fmt.Errorf("%d is outside [%d, %d]", n, k.min, k.max)
	}
	return n, nil
}

// keyDefault is a key and its default as docs/configuration.md and -h write it.
type keyDefault struct{ name, value string }

// defaults returns every key of ks with its default in def.
func (ks keys[C]) defaults(def C) []keyDefault {
	out := make([]keyDefault, len(ks))
	for i, k := range ks {
		out[i] = keyDefault{k.name, k.note}
		if k.note == "" {
			out[i].value = k.format(&def)
		}
	}
	return out
}

// format writes k's field of cfg as a value that set reads back exactly:
// durations with the largest exact suffix up to h (30m, 24h), byte sizes
// with the largest exact binary suffix (64k).
func (k key[C]) format(cfg *C) string {
	switch p := k.field(cfg).(type) {
	case *time.Duration:
		if k.unit == decimalMillis {
			return strconv.FormatFloat(float64(*p)/float64(time.Millisecond), 'f', -1, 64)
		}
		return formatDuration(*p)
	case *int64:
		return k.formatNumber(*p)
	case *int:
		return k.formatNumber(int64(*p))
	case *bool:
		return strconv.FormatBool(*p)
	case *float64:
		return strconv.FormatFloat(*p, 'f', -1, 64)
	case *string:
		return *p
	case *[]disk.Volume:
		return formatVolumes(*p)
	default:
		panic(fmt.Sprintf("BUG: key %s sets a %T", k.name, p))
	}
}

// formatVolumes writes vols as dfs.datanode.data.dir does.
func formatVolumes(vols []disk.Volume) string {
	s := make([]string, len(vols))
	for i, v := range vols {
		s[i] = v.Path
		if v.StorageType != "" && v.StorageType != disk.DefaultStorageType {
			s[i] = "[" + v.StorageType + "]" + v.Path
		}
	}
	return strings.Join(s, ",")
}

func (k key[C]) formatNumber(n int64) string {
	if k.unit == rate {
		return netlab.FormatRate(uint64(n))
	}
	if k.unit == byteSize && n != 0 {
		for i := len(binaryPrefixes) - 1; i >= 0; i-- {
			if mult := int64(1) << (10 * (i + 1)); n%mult == 0 {
				return strconv.FormatInt(n/mult, 10) + binaryPrefixes[i:i+1]
			}
		}
	}
	return strconv.FormatInt(n, 10)
}

// formatDuration writes d with the largest of Hadoop's suffixes, up to h,
// that writes it exactly.
func formatDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	for i := len(timeUnits) - 1; i >= 0; i-- {
		u := timeUnits[i]
		if u.unit <= time.Hour && d%u.unit == 0 {
			return strconv.FormatInt(int64(d/u.unit), 10) + u.suffix
		}
	}
	panic("BUG: no time unit divides " + d.String())
}

func (k key[C]) parseRate(v string) (int64, error) {
	bps, err := netlab.ParseRate(v)
	if err != nil {
		return 0, err
	}
	if int64(bps) < k.min || int64(bps) > k.max {
		return 0, fmt.Errorf("%q is outside [%s, %s]", v, netlab.FormatRate(uint64(k.min)), netlab.FormatRate(uint64(k.max)))
	}
	return int64(bps), nil
}
