package jmx

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// matches reports whether pat selects the bean named name, as
// ObjectName.apply does (matchDomains, matchKeys), with an empty domain
// standing for the default domain on both sides.
func (pat *objectName) matches(name *objectName) bool {
	if name.isPattern() {
		return false
	}
	domain := effectiveDomain(name.domain)
	if pat.domainPattern {
		if !wildmatch(domain, pat.domain) {
			return false
		}
	} else if effectiveDomain(pat.domain) != domain {
		return false
	}
	if !pat.listPattern && !pat.valuePattern {
		return slices.Equal(pat.props, name.props)
	}
	if !pat.listPattern && len(pat.props) != len(name.props) {
		return false
	}
	for _, p := range pat.props {
		v, ok := name.value(p.key)
		if !ok {
			return false
		}
		if p.pattern {
			if !wildmatch(v, p.value) {
				return false
			}
		} else if v != p.value {
			return false
		}
	}
	return true
}

// value returns the value of key in n.
func (n *objectName) value(key string) (string, bool) {
	i, ok := slices.BinarySearchFunc(n.props, key, func(p property, k string) int {
		return strings.Compare(p.key, k)
	})
	if !ok {
		return "", false
	}
	return n.props[i].value, true
}

func effectiveDomain(d string) string {
	if d == "" {
		return defaultDomain
	}
	return d
}

// wildmatch reports whether s matches pat, where '*' in pat matches any run
// of characters and '?' any one character; every other character of pat,
// a backslash included, matches itself. It is com.sun.jmx.mbeanserver
// Util.wildmatch: greedy with one backtrack point, so O(len(s)·len(pat)).
// Java counts UTF-16 units; this counts runes.
func wildmatch(s, pat string) bool {
	si, pi := 0, 0
	starS, starP := -1, -1
	for {
		if pi < len(pat) {
			switch pat[pi] {
			case '*':
				pi++
				starP, starS = pi, si
				continue
			case '?':
				if si < len(s) {
					_, n := utf8.DecodeRuneInString(s[si:])
					si += n
					pi++
					continue
				}
			default:
				_, n := utf8.DecodeRuneInString(pat[pi:])
				if strings.HasPrefix(s[si:], pat[pi:pi+n]) {
					si += n
					pi += n
					continue
				}
			}
		} else if si == len(s) {
			return true
		}
		if starP < 0 || starS == len(s) {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		pi, si = starP, starS
	}
}

// Query returns the beans whose Name matches qry with the rules of JMX
// ObjectName patterns, in the order of beans: an exact name (key properties
// in any order), "domain:*", "*:*", "Hadoop:service=NameNode,*", or values
// with '*' and '?'. A bean whose Name is not a valid ObjectName, or is
// itself a pattern, matches nothing, as no MBeanServer could hold it. A
// malformed qry is an error. The result is a new slice, nil when nothing
// matches; the Bean values in it share their Attrs with beans.
func Query(beans []Bean, qry string) ([]Bean, error) {
	pat, err := parseObjectName(qry)
	if err != nil {
		return nil, fmt.Errorf("jmx query %q: %w", qry, err)
	}
	return query(beans, &pat), nil
}

func query(beans []Bean, pat *objectName) []Bean {
	var out []Bean
	for _, b := range beans {
		name, err := parseObjectName(b.Name)
		if err == nil && pat.matches(&name) {
			out = append(out, b)
		}
	}
	return out
}
