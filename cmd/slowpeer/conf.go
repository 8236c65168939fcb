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
// a Hadoop configuration directory overlaid with -D options. The daemons'
// key tables (keytables.go) read it, parsing values as Hadoop's
// Configuration does.
type hadoopConf map[string]string

// confFlags are the -conf DIR and -D key=value flags shared by the daemons.
type confFlags struct {
	dir  string
	defs []string
}

// register adds -conf and -D to fs, and to its usage the daemon's keys
// with their defaults.
func (c *confFlags) register(fs *flag.FlagSet, defaults ...[]keyDefault) {
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprintln(fs.Output(), "\nConfiguration keys (-D key=value, hdfs-site.xml, core-site.xml) and their defaults:")
		for _, ds := range defaults {
			for _, d := range ds {
				fmt.Fprintf(fs.Output(), "  %s = %s\n", d.name, d.value)
			}
		}
	}
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

// parseCount parses a whole number as Configuration.getInt does: decimal,
// or hexadecimal after 0x.
func parseCount(v string) (int64, bool) {
	var n int64
	var err error
	if hex, found := strings.CutPrefix(strings.ToLower(v), "0x"); found {
		n, err = strconv.ParseInt(hex, 16, 64)
	} else {
		n, err = strconv.ParseInt(v, 10, 64)
	}
	return n, err == nil
}

// binaryPrefixes are the suffixes of Configuration.getLongBytes
// (StringUtils.TraditionalBinaryPrefix).
const binaryPrefixes = "kmgtpe"

// parseBytes parses a byte count as Configuration.getLongBytes does: a
// whole number with an optional binary suffix (64k is 65536).
func parseBytes(v string) (int64, bool) {
	num, mult := v, int64(1)
	if i := strings.IndexByte(binaryPrefixes, lower(v[len(v)-1])); i >= 0 {
		num, mult = v[:len(v)-1], int64(1)<<(10*(i+1))
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, false
	}
	return n * mult, true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
