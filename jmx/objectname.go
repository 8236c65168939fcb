package jmx

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// defaultDomain is the default domain of Java's platform MBeanServer. JMX
// puts an empty domain there, both when it registers a bean and when it
// answers a query (com.sun.jmx.mbeanserver.Repository.query).
const defaultDomain = "DefaultDomain"

// objectName is a parsed javax.management.ObjectName: a bean's name or a
// pattern that selects beans.
type objectName struct {
	domain string
	// props holds the key properties sorted by key, the canonical order of
	// ObjectName.setCanonicalName. Values keep their quotes and escapes, as
	// in Java, so k="v" and k=v are different values.
	props []property

	domainPattern bool // the domain holds '*' or '?'
	listPattern   bool // the property list holds "*"
	valuePattern  bool // some value holds an unescaped '*' or '?'
}

// property is one key property of an objectName.
type property struct {
	key, value string
	pattern    bool // value holds an unescaped '*' or '?'
}

// isPattern reports whether n is a pattern; a pattern never names a bean.
func (n *objectName) isPattern() bool {
	return n.domainPattern || n.listPattern || n.valuePattern
}

// parseObjectName parses s with the rules of ObjectName.construct.
func parseObjectName(s string) (objectName, error) {
	if s == "" {
		// ObjectName.construct: the empty name is the pattern *:*.
		return objectName{domain: "*", domainPattern: true, listPattern: true}, nil
	}
	var n objectName
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		if strings.IndexByte(s, '=') >= 0 {
			return n, errors.New("domain part must be specified")
		}
		return n, errors.New("key properties cannot be empty")
	}
	n.domain = s[:colon]
	if strings.IndexByte(n.domain, '\n') >= 0 {
		return n, errors.New(`invalid character '\n' in domain name`)
	}
	n.domainPattern = strings.ContainsAny(n.domain, "*?")
	list := s[colon+1:]
	if list == "" {
		return n, errors.New("key properties cannot be empty")
	}
	for i := 0; i < len(list); {
		if list[i] == '*' {
			if n.listPattern {
				return n, errors.New("cannot have several '*' characters in pattern property list")
			}
			n.listPattern = true
			i++
			if i < len(list) && list[i] != ',' {
				return n, errors.New("invalid character found after '*': end of name or ',' expected")
			}
			i++ // past the ',' (or past the end)
			continue
		}
		p, next, err := parseProperty(list, i)
		if err != nil {
			return n, err
		}
		n.valuePattern = n.valuePattern || p.pattern
		n.props = append(n.props, p)
		i = next
	}
	slices.SortFunc(n.props, func(a, b property) int { return strings.Compare(a.key, b.key) })
	for i := 1; i < len(n.props); i++ {
		if n.props[i].key == n.props[i-1].key {
			return n, fmt.Errorf("key %q already defined", n.props[i].key)
		}
	}
	return n, nil
}

// parseProperty parses the key property that starts at list[i] and returns
// it with the index where the next one starts.
func parseProperty(list string, i int) (property, int, error) {
	var p property
	if list[i] == '=' {
		return p, 0, errors.New("invalid key (empty)")
	}
	start := i
	for ; i < len(list) && list[i] != '='; i++ {
		switch c := list[i]; c {
		case '*', '?', ',', ':', '\n':
			return p, 0, fmt.Errorf("invalid character %q in key part of property", c)
		}
	}
	if i == len(list) {
		return p, 0, errors.New("unterminated key property part")
	}
	p.key = list[start:i]
	i++ // past '='
	start = i
	if i < len(list) && list[i] == '"' {
		for i++; i < len(list) && list[i] != '"'; i++ {
			switch list[i] {
			case '\\':
				i++
				if i == len(list) {
					return p, 0, errors.New("unterminated quoted value")
				}
				switch c := list[i]; c {
				case '\\', '"', '?', '*', 'n':
				default:
					return p, 0, fmt.Errorf("invalid escape sequence '\\%c' in quoted value", c)
				}
			case '\n':
				return p, 0, errors.New("newline in quoted value")
			case '*', '?':
				p.pattern = true
			}
		}
		if i == len(list) {
			return p, 0, errors.New("unterminated quoted value")
		}
		i++ // past the closing quote
		if i < len(list) && list[i] != ',' {
			return p, 0, fmt.Errorf("invalid character %q after quoted value", list[i])
		}
	} else {
		for ; i < len(list) && list[i] != ','; i++ {
			switch c := list[i]; c {
			case '*', '?':
				p.pattern = true
			case '=', ':', '"', '\n':
				return p, 0, fmt.Errorf("invalid character %q in value part of property", c)
			}
		}
	}
	p.value = list[start:i]
	if i == len(list)-1 {
		return p, 0, errors.New("invalid ending comma")
	}
	return p, i + 1, nil
}

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

// canonical returns n's canonical name, as ObjectName.getCanonicalName: the
// domain, then the key properties sorted by key, then ",*" or "*" for a
// property list pattern.
func (n *objectName) canonical() string {
	var b strings.Builder
	b.WriteString(n.domain)
	b.WriteByte(':')
	for i, p := range n.props {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.key)
		b.WriteByte('=')
		b.WriteString(p.value)
	}
	if n.listPattern {
		if len(n.props) > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('*')
	}
	return b.String()
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
// malformed qry is an error. The result shares no memory with beans except
// the Bean values themselves.
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
