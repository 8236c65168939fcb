package jmx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Names of the Hadoop beans slowpeer writes and reads.
const (
	// NameNodeStatusBean is NameNodeStatusMXBean's bean; it carries
	// SlowPeersReport, a string holding the /slowpeers JSON.
	NameNodeStatusBean = "Hadoop:service=NameNode,name=NameNodeStatus"
	// FSNamesystemStateBean is FSNamesystemMBean's bean; it carries
	// NumLiveDataNodes and NumDeadDataNodes.
	FSNamesystemStateBean = "Hadoop:service=NameNode,name=FSNamesystemState"
	// DataNodeInfoBean is DataNodeMXBean's bean; it carries
	// SendPacketDownstreamAvgInfo.
	DataNodeInfoBean = "Hadoop:service=DataNode,name=DataNodeInfo"
)

// Bean is one MBean: its ObjectName, its modelerType (the class Hadoop
// names, such as "org.apache.hadoop.hdfs.server.namenode.NameNode"), and
// its attributes in output order. The zero value is a bean with no name.
type Bean struct {
	Name        string
	ModelerType string
	Attrs       []Attr
}

// Attr is one attribute of a Bean. Value is anything encoding/json
// encodes: nil, bool, string, a number, json.Number (written verbatim),
// []any, map[string]any (written with sorted keys, as Java writes a
// CompositeData), or a json.RawMessage holding already encoded JSON.
type Attr struct {
	Name  string
	Value any
}

// Attr returns the value of the attribute called name and whether b has it.
func (b Bean) Attr(name string) (any, bool) {
	for _, a := range b.Attrs {
		if a.Name == name {
			return a.Value, true
		}
	}
	return nil, false
}

// MarshalJSON encodes b as one element of a beans array: "name",
// "modelerType", then Attrs in order. It fails when an attribute is called
// "name" or "modelerType", when two attributes share a name, or when a
// value cannot be encoded (a NaN, a channel); Write skips such attributes
// instead.
func (b Bean) MarshalJSON() ([]byte, error) {
	e := newEncoder()
	if err := e.bean(b, false); err != nil {
		return nil, fmt.Errorf("marshal bean %q: %w", b.Name, err)
	}
	return e.buf.Bytes(), nil
}

// Find returns the bean called name: the first whose Name is name, else the
// first whose ObjectName equals name's, so that key properties may come in
// any order. A pattern finds nothing; use Query for patterns.
func Find(beans []Bean, name string) (Bean, bool) {
	for _, b := range beans {
		if b.Name == name {
			return b, true
		}
	}
	want, err := parseObjectName(name)
	if err != nil || want.isPattern() {
		return Bean{}, false
	}
	for _, b := range beans {
		n, err := parseObjectName(b.Name)
		if err == nil && want.matches(&n) {
			return b, true
		}
	}
	return Bean{}, false
}

// encoder writes compact JSON for beans into buf. Its json.Encoder writes
// each value into scratch first, so that a value that fails leaves buf
// untouched.
type encoder struct {
	buf     bytes.Buffer
	scratch bytes.Buffer
	body    []byte // Write's pretty-printed answer
	values  *json.Encoder
	seen    map[string]struct{}
}

// encoders keeps Write's encoders and their buffers between answers:
// /jmx of 10 000 DataNodes is megabytes, built anew every scrape
// otherwise.
var encoders = sync.Pool{New: func() any { return newEncoder() }}

func newEncoder() *encoder {
	e := &encoder{seen: make(map[string]struct{})}
	e.values = json.NewEncoder(&e.scratch)
	// Jackson, which Hadoop writes with, escapes no HTML characters.
	e.values.SetEscapeHTML(false)
	return e
}

// encode returns the compact JSON of v; it is valid until the next call.
func (e *encoder) encode(v any) ([]byte, error) {
	e.scratch.Reset()
	if err := e.values.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(e.scratch.Bytes(), []byte("\n")), nil
}

// str writes s as a JSON string.
func (e *encoder) str(s string) {
	b, err := e.encode(s)
	if err != nil {
		panic("BUG: encoding a string failed: " + err.Error())
	}
	e.buf.Write(b)
}

// bean writes b. With lenient set it skips, as JMXJsonServlet.writeAttribute
// skips, every attribute Hadoop would not write (see writable) and every
// value that cannot be encoded, and never fails; otherwise those are errors
// and buf holds a partial bean.
func (e *encoder) bean(b Bean, lenient bool) error {
	e.buf.WriteString(`{"name":`)
	e.str(b.Name)
	e.buf.WriteString(`,"modelerType":`)
	e.str(b.ModelerType)
	clear(e.seen)
	for _, a := range b.Attrs {
		if err := e.attr(a, lenient); err != nil && !lenient {
			return err
		}
	}
	e.buf.WriteByte('}')
	return nil
}

// attr writes one attribute preceded by a comma, or nothing on an error.
func (e *encoder) attr(a Attr, lenient bool) error {
	if a.Name == "name" || a.Name == "modelerType" {
		return fmt.Errorf("attribute %q clashes with the bean's own member", a.Name)
	}
	if lenient && !writable(a.Name) {
		return errors.New("not writable")
	}
	if _, dup := e.seen[a.Name]; dup {
		return fmt.Errorf("attribute %q given twice", a.Name)
	}
	mark := e.buf.Len()
	e.buf.WriteByte(',')
	e.str(a.Name)
	e.buf.WriteByte(':')
	v, err := e.encode(a.Value)
	if err != nil {
		e.buf.Truncate(mark)
		return fmt.Errorf("attribute %q: %w", a.Name, err)
	}
	e.buf.Write(v)
	e.seen[a.Name] = struct{}{}
	return nil
}

// writable reports whether JMXJsonServlet.writeAttribute writes an
// attribute so named: it skips modelerType and names holding '=', ':' or a
// space. An empty name is skipped as well; no MBean has one.
func writable(name string) bool {
	return name != "" && name != "modelerType" && !strings.ContainsAny(name, "=: ")
}
