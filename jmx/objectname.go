package jmx

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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
