package jmx

import (
	"strings"
	"testing"
)

// Reference: ObjectName.construct, which throws MalformedObjectNameException
// for each of these.
func TestQueryMalformed(t *testing.T) {
	f := func(qry string) {
		t.Helper()
		got, err := Query(queryBeans, qry)
		if err == nil {
			t.Fatalf("Query(%q) = %q, want an error", qry, names(got))
		}
		if got != nil {
			t.Fatalf("Query(%q) returned beans with its error", qry)
		}
		if !strings.Contains(err.Error(), "jmx query") {
			t.Fatalf("Query(%q) error %q does not name the operation", qry, err)
		}
	}
	f("Hadoop")                                       // no domain separator
	f("*")                                            // the same: "*" is not "*:*"
	f("Hadoop:")                                      // key properties cannot be empty
	f(":")                                            // the same
	f("a=b")                                          // domain part must be specified
	f("Hadoop:*,*")                                   // two '*'
	f("Hadoop:*x")                                    // '*' not followed by ','
	f("Hadoop:=x")                                    // empty key
	f("Hadoop:k")                                     // unterminated key
	f("Hadoop:k=v,k2")                                // the same, later
	f("Hadoop:k=v,")                                  // ending comma
	f("Hadoop:k=v,,k2=v")                             // empty element
	f("Hadoop:k=v,k=w")                               // key twice
	f("Hadoop:name=a,service=b,name=a")               // key twice, not adjacent
	f("Hadoop:k*=v")                                  // wildcard in a key
	f("Hadoop:k?=v")                                  // the same
	f("Hadoop:k:x=v")                                 // ':' in a key
	f("Hadoop:k=a:b")                                 // ':' in a value
	f("Hadoop:k=a=b")                                 // '=' in a value
	f(`Hadoop:k=a"b`)                                 // quote in an unquoted value
	f(`Hadoop:k="abc`)                                // unterminated quoted value
	f(`Hadoop:k="abc\"`)                              // the same, escaped quote
	f(`Hadoop:k="a\`)                                 // the same, lone backslash
	f(`Hadoop:k="a\x"`)                               // bad escape
	f("Hadoop:k=\"a\nb\"")                            // newline in a quoted value
	f("Hadoop:k=a\nb")                                // newline in a value
	f("Had\noop:k=v")                                 // newline in the domain
	f("Hadoop:k\n=v")                                 // newline in a key
	f(`Hadoop:k="v",`)                                // ending comma after quotes
	f(`Hadoop:k="v"x,y=z`)                            // junk after quotes (stricter than Java)
	f("Hadoop:service=NameNode,name=NameNodeStatus,") // ending comma
}

// Reference: ObjectName.construct accepts these.
func TestParseObjectNameEdges(t *testing.T) {
	f := func(s, canonical string, pattern bool) {
		t.Helper()
		n, err := parseObjectName(s)
		if err != nil {
			t.Fatalf("parseObjectName(%q): %v", s, err)
		}
		if got := n.canonical(); got != canonical {
			t.Fatalf("parseObjectName(%q).canonical() = %q, want %q", s, got, canonical)
		}
		if n.isPattern() != pattern {
			t.Fatalf("parseObjectName(%q).isPattern() = %v, want %v", s, n.isPattern(), pattern)
		}
	}
	f("d:k=", "d:k=", false)                   // an unquoted value may be empty
	f(`d:k=""`, `d:k=""`, false)               // so may a quoted one
	f("d:k=,j=v", "d:j=v,k=", false)           //
	f("d:*,", "d:*", true)                     // Java accepts a comma after '*'
	f("a=b:k=v", "a=b:k=v", false)             // '=' may sit in a domain
	f(":k=v", ":k=v", false)                   // the default domain
	f("d:k=v,*", "d:k=v,*", true)              //
	f("d:*,k=v", "d:k=v,*", true)              //
	f("d:b=2,a=1,c=3", "d:a=1,b=2,c=3", false) // canonical order
	f(" d : k = v ", " d : k = v ", false)     // spaces are characters
	f(`d:k="a,b=c:d"`, `d:k="a,b=c:d"`, false) // anything goes in quotes
	f(`d:k="a\"b\\c\nd\*e\?"`, `d:k="a\"b\\c\nd\*e\?"`, false)
	f("d:k=a*", "d:k=a*", true)
	f("d*:k=v", "d*:k=v", true)
	f("", "*:*", true)
}
