package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/colinmarc/hdfs/v2/hadoopconf"
)

// hadoopConf is the flat key/value configuration of a daemon: the files of
// a Hadoop configuration directory overlaid with -D options. The typed
// getters parse values as Hadoop's Configuration does and name the key and
// the value in their errors.
type hadoopConf map[string]string

// confFlags are the -conf DIR and -D key=value flags shared by the daemons.
type confFlags struct {
	dir  string
	defs []string
}

func (c *confFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.dir, "conf", "", "Hadoop configuration `DIR` holding hdfs-site.xml (default $HADOOP_CONF_DIR)")
	fs.Func("D", "set a configuration `key=value` (repeatable); wins over the files", func(s string) error {
		k, _, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("want key=value, got %q", s)
		}
		c.defs = append(c.defs, s)
		return nil
	})
}

// load reads core-site.xml, hdfs-site.xml and mapred-site.xml from -conf
// DIR (else from $HADOOP_CONF_DIR, when set) and applies the -D options.
// A -conf DIR that does not exist is an error; a directory with none of
// the files is not, as for Hadoop.
func (c *confFlags) load() (hadoopConf, error) {
	dir := c.dir
	if dir == "" {
		dir = os.Getenv("HADOOP_CONF_DIR")
	}
	conf := hadoopConf{}
	if dir != "" {
		if st, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("read configuration: %w", err)
		} else if !st.IsDir() {
			return nil, fmt.Errorf("read configuration: %s is not a directory", dir)
		}
		files, err := hadoopconf.Load(dir)
		if err != nil {
			return nil, fmt.Errorf("read configuration in %s: %w", dir, err)
		}
		for k, v := range files {
			conf[strings.TrimSpace(k)] = v
		}
	}
	for _, d := range c.defs {
		k, v, _ := strings.Cut(d, "=")
		conf[strings.TrimSpace(k)] = v
	}
	return conf, nil
}

// value returns the trimmed value of key and whether it is set to
// something other than blanks (Hadoop treats a blank value as unset).
func (h hadoopConf) value(key string) (string, bool) {
	v, ok := h[key]
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}

// timeUnits are Hadoop's time-duration suffixes (Configuration.
// ParsedTimeDuration), in the order Hadoop tries them.
var timeUnits = []struct {
	suffix string
	unit   time.Duration
}{
	{"ns", time.Nanosecond}, {"us", time.Microsecond}, {"ms", time.Millisecond},
	{"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour},
}

// parseHadoopDuration parses a value as Configuration.getTimeDuration does:
// an integer with an optional suffix (ns, us, ms, s, m, h, d, any case); a
// bare integer is in bareUnit, the unit Hadoop reads that key in.
func parseHadoopDuration(s string, bareUnit time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	num, unit := s, bareUnit
	lower := strings.ToLower(s)
	for _, u := range timeUnits {
		if strings.HasSuffix(lower, u.suffix) {
			num, unit = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.unit
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number with an optional ns, us, ms, s, m, h or d suffix", s)
	}
	if n < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	if n > math.MaxInt64/int64(unit) {
		return 0, fmt.Errorf("%q is too long", s)
	}
	return time.Duration(n) * unit, nil
}

// duration returns key as a positive duration, or def when unset.
func (h hadoopConf) duration(key string, def, bareUnit time.Duration) (time.Duration, error) {
	v, ok := h.value(key)
	if !ok {
		return def, nil
	}
	d, err := parseHadoopDuration(v, bareUnit)
	if err == nil && d <= 0 {
		err = fmt.Errorf("%q must be more than zero", v)
	}
	if err != nil {
		return 0, fmt.Errorf("configuration %s: %w", key, err)
	}
	return d, nil
}

// integer returns key as an int in [lo, hi], or def when unset. Like
// Configuration.getInt it accepts a 0x hexadecimal form.
func (h hadoopConf) integer(key string, def, lo, hi int) (int, error) {
	v, ok := h.value(key)
	if !ok {
		return def, nil
	}
	var n int64
	var err error
	if hex, found := strings.CutPrefix(strings.ToLower(v), "0x"); found {
		n, err = strconv.ParseInt(hex, 16, 64)
	} else {
		n, err = strconv.ParseInt(v, 10, 64)
	}
	if err != nil {
		return 0, fmt.Errorf("configuration %s: %q is not a whole number", key, v)
	}
	if n < int64(lo) || n > int64(hi) {
		return 0, fmt.Errorf("configuration %s: %d is outside [%d, %d]", key, n, lo, hi)
	}
	return int(n), nil
}

// float returns key as a finite float64 ≥ 0, or def when unset.
func (h hadoopConf) float(key string, def float64) (float64, error) {
	v, ok := h.value(key)
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, fmt.Errorf("configuration %s: %q is not a finite number ≥ 0", key, v)
	}
	return f, nil
}

// boolean returns key as Configuration.getBoolean reads it ("true" or
// "false", any case), or def when unset. Hadoop silently takes the
// default for anything else; here that is an error.
func (h hadoopConf) boolean(key string, def bool) (bool, error) {
	v, ok := h.value(key)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("configuration %s: %q is not true or false", key, v)
}

// binaryPrefixes are the suffixes of Configuration.getLongBytes
// (StringUtils.TraditionalBinaryPrefix).
const binaryPrefixes = "kmgtpe"

// bytes returns key as a byte count in [lo, hi], or def when unset. It
// accepts Hadoop's binary suffixes: 64k is 65536.
func (h hadoopConf) bytes(key string, def, lo, hi int64) (int64, error) {
	v, ok := h.value(key)
	if !ok {
		return def, nil
	}
	num, mult := v, int64(1)
	if i := strings.IndexByte(binaryPrefixes, lower(v[len(v)-1])); i >= 0 {
		num, mult = v[:len(v)-1], int64(1)<<(10*(i+1))
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, fmt.Errorf("configuration %s: %q is not a byte count such as 65536 or 64k", key, v)
	}
	n *= mult
	if n < lo || n > hi {
		return 0, fmt.Errorf("configuration %s: %d is outside [%d, %d]", key, n, lo, hi)
	}
	return n, nil
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
