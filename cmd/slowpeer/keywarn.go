package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/slowpeer/slowpeer/hadoopconf"
)

// The daemons' keys by name: what "namenode" and "datanode" read.
func namenodeKeyNames() []string { return keyNames(namenodeDefaults()...) }

func datanodeKeyNames() []string { return keyNames(datanodeDefaults()...) }

func keyNames(tables ...[]keyDefault) []string {
	var out []string
	for _, t := range tables {
		for _, d := range t {
			out = append(out, d.name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// slowpeerPrefix is slowpeer's own key namespace: a key there that no
// daemon reads is a mistake wherever it is set.
const slowpeerPrefix = "slowpeer."

// keyWarnings returns what the daemon named daemon, which reads own, says
// at start of the keys c loaded that it does not read: a -D key it does
// not read (given to this daemon, it was meant for it), naming the other
// daemon when that one reads it (other, named otherName) and else the
// closest key of slowpeer's; a key of slowpeer's namespace in the files
// that no daemon reads (a shared hdfs-site.xml holds both daemons' keys,
// and Hadoop's, so only slowpeer's are checked there); a -D option a
// final property of a file overrides.
func keyWarnings(c *confFlags, daemon string, own, other []string, otherName string) []string {
	all := append(slices.Clone(own), other...)
	var out []string
	for _, p := range c.loaded.Properties() {
		if slices.Contains(own, p.Key) {
			continue
		}
		cli := p.Source == hadoopconf.SourceCommandLine
		switch {
		case cli && slices.Contains(other, p.Key):
			out = append(out, fmt.Sprintf("-D %s is a key of slowpeer %s: slowpeer %s does not read it", p.Key, otherName, daemon))
		case cli || strings.HasPrefix(p.Key, slowpeerPrefix) && !slices.Contains(other, p.Key):
			msg := fmt.Sprintf("-D %s: slowpeer %s reads no such key", p.Key, daemon)
			if !cli {
				msg = fmt.Sprintf("%s: %s is no key of slowpeer's", p.Source, p.Key)
			}
			if near := closestKey(p.Key, all); near != "" {
				msg += "; did you mean " + near + "?"
			}
			out = append(out, msg)
		}
	}
	for _, k := range c.ignored {
		p, _ := c.loaded.Get(k)
		out = append(out, fmt.Sprintf("-D %s is ignored: it is final in %s", k, p.Source))
	}
	return out
}

// closestKey returns the key of keys nearest to key by edit distance, when
// it is near enough to be a misspelling (at most a third of its length,
// and 4, apart); "" otherwise.
func closestKey(key string, keys []string) string {
	best, bestD := "", min(4, len(key)/3)+1
	for _, k := range keys {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
