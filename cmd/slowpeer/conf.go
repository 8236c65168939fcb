package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/hadoopconf"
)

// confPath is where both daemons serve their effective configuration, as
// Hadoop daemons serve /conf (package hadoopconf).
const confPath = "/conf"

// hadoopConf is the flat key/value configuration of a daemon: the files of
// a Hadoop configuration directory overlaid with -D options. The daemons'
// key tables (keytables.go) read it, parsing values as Hadoop's
// Configuration does.
type hadoopConf map[string]string

// confFlags are the -conf DIR and -D key=value flags shared by the daemons.
// After load, loaded holds every property with its source, for /conf and
// for the errors and warnings that name where a value came from.
type confFlags struct {
	dir    string
	defs   []string
	loaded hadoopconf.Conf
	// ignored are the -D options a final property of a file kept from
	// taking effect, as Hadoop ignores them.
	ignored []string
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
// the files is not, as for Hadoop. A file that does not parse is an error
// naming it.
func (c *confFlags) load() (hadoopConf, error) {
	dir := c.dir
	if dir == "" {
		dir = os.Getenv("HADOOP_CONF_DIR")
	}
	c.loaded, c.ignored = hadoopconf.Conf{}, nil
	if dir != "" {
		if st, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("read configuration: %w", err)
		} else if !st.IsDir() {
			return nil, fmt.Errorf("read configuration: %s is not a directory", dir)
		}
		if err := c.loaded.ReadDir(dir); err != nil {
			return nil, err
		}
	}
	for _, d := range c.defs {
		k, v, _ := strings.Cut(d, "=")
		if !c.loaded.Set(hadoopconf.Property{Key: strings.TrimSpace(k), Value: v, Source: hadoopconf.SourceCommandLine}) {
			c.ignored = append(c.ignored, strings.TrimSpace(k))
		}
	}
	conf := hadoopConf{}
	for _, p := range c.loaded.Properties() {
		conf[p.Key] = p.Value
	}
	return conf, nil
}

// where says where key's value came from, for an error: "set in
// hdfs-site.xml in DIR" or "set with -D".
func (c *confFlags) where(key string) string {
	p, ok := c.loaded.Get(key)
	switch {
	case !ok:
		return ""
	case p.Source == hadoopconf.SourceCommandLine:
		return "set with -D"
	}
	dir := c.dir
	if dir == "" {
		dir = os.Getenv("HADOOP_CONF_DIR")
	}
	return "set in " + filepath.Join(dir, p.Source)
}

// named adds to a configuration error where the value of its key came
// from.
func (c *confFlags) named(err error) error {
	var ke *keyError
	if errors.As(err, &ke) {
		if w := c.where(ke.key); w != "" {
			return fmt.Errorf("%w (%s)", err, w)
		}
	}
	return err
}

// properties returns the effective configuration for /conf: every
// property of the files and -D, and the default of every key of defaults
// that they leave unset, sorted by key.
func (c *confFlags) properties(defaults ...[]keyDefault) []hadoopconf.Property {
	var all hadoopconf.Conf
	for _, ds := range defaults {
		for _, d := range ds {
			all.Set(hadoopconf.Property{Key: d.name, Value: d.value, Source: hadoopconf.SourceDefault})
		}
	}
	for _, p := range c.loaded.Properties() {
		all.Set(p)
	}
	return all.Properties()
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
