package hadoopconf

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The sources a Property names besides its file, as Hadoop names them.
const (
	// SourceCommandLine is the source of a -D key=value, as
	// GenericOptionsParser sets it.
	SourceCommandLine = "from command line"
	// SourceDefault is the source of a daemon's default: Hadoop names its
	// *-default.xml files here.
	SourceDefault = "default"
)

// SiteFiles are the files ReadDir reads, in Hadoop's order: a later one
// overrides an earlier one.
var SiteFiles = []string{"core-site.xml", "hdfs-site.xml", "mapred-site.xml"}

// MaxFileBytes bounds a configuration file.
const MaxFileBytes = 16 << 20

// Property is one configuration property and where its value came from.
type Property struct {
	Key, Value string
	// Final is set by <final>true</final>: later resources do not
	// override it.
	Final bool
	// Source is the file it was read from (its name, as Hadoop names a
	// resource found on its class path), SourceCommandLine or
	// SourceDefault.
	Source string
}

// Conf is a configuration: properties by key, each with its source. Its
// zero value is empty and ready; it is not safe for concurrent writes.
type Conf struct {
	props map[string]Property
}

// Set sets p unless the key is final already (Hadoop logs an attempt to
// override a final parameter and ignores it); it reports whether it did.
func (c *Conf) Set(p Property) bool {
	if old, ok := c.props[p.Key]; ok && old.Final {
		return false
	}
	if c.props == nil {
		c.props = map[string]Property{}
	}
	c.props[p.Key] = p
	return true
}

// Get returns the property of key.
func (c *Conf) Get(key string) (Property, bool) {
	p, ok := c.props[key]
	return p, ok
}

// Properties returns every property, sorted by key.
func (c *Conf) Properties() []Property {
	out := make([]Property, 0, len(c.props))
	for _, p := range c.props {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Property) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Len returns the number of properties.
func (c *Conf) Len() int { return len(c.props) }

// ReadDir reads SiteFiles from dir into c, in order; a missing file is
// skipped, as Hadoop skips a resource it does not find. The first file
// that cannot be read or parsed is an error naming it; c then holds the
// files before it.
func (c *Conf) ReadDir(dir string) error {
	for _, name := range SiteFiles {
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read configuration: %w", err)
		}
		props, err := ParseSite(io.LimitReader(f, MaxFileBytes+1), name)
		f.Close()
		if err != nil {
			return fmt.Errorf("read configuration %s: %w", path, err)
		}
		for _, p := range props {
			c.Set(p)
		}
	}
	return nil
}

// siteXML is a configuration file.
type siteXML struct {
	XMLName    xml.Name      `xml:"configuration"`
	Properties []propertyXML `xml:"property"`
}

type propertyXML struct {
	Name  *string `xml:"name"`
	Value *string `xml:"value"`
	Final string  `xml:"final"`
}

// ParseSite reads one configuration file whose properties get source.
// Keys are trimmed, values kept as written (readers trim them); a
// property without a <name> is an error naming its place, one without a
// <value> is skipped, as Configuration.loadProperty skips it.
func ParseSite(r io.Reader, source string) ([]Property, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxFileBytes)
	}
	var doc siteXML
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&doc); err != nil {
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("not XML: line %d: %s", se.Line, se.Msg)
		}
		return nil, fmt.Errorf("not a Hadoop configuration (a <configuration> of <property> elements): %w", err)
	}
	var out []Property
	for i, p := range doc.Properties {
		if p.Name == nil || strings.TrimSpace(*p.Name) == "" {
			return nil, fmt.Errorf("property %d has no <name>", i+1)
		}
		if p.Value == nil {
			continue
		}
		final := strings.TrimSpace(p.Final)
		if final != "" && final != "true" && final != "false" {
			return nil, fmt.Errorf("property %s: <final> %q is not true or false", strings.TrimSpace(*p.Name), final)
		}
		out = append(out, Property{Key: strings.TrimSpace(*p.Name), Value: *p.Value, Final: final == "true", Source: source})
	}
	return out, nil
}
