package hadoopconf

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/slowpeer/slowpeer/reports"
)

// Redacted replaces the value of a sensitive key, as
// ConfigRedactor.REDACTED_TEXT.
const Redacted = "<redacted>"

// sensitive are the default patterns of hadoop.security.sensitive-config-keys
// (core-default.xml), matched anywhere in a key as ConfigRedactor matches
// them (Matcher.find).
var sensitive = regexp.MustCompile(strings.Join([]string{
	`secret$`, `password$`, `ssl\.keystore\.pass$`, `fs\.s3.*[Ss]ecret.?[Kk]ey`,
	`fs\.s3a\..*\.server-side-encryption\.key`, `fs\.s3a\.encryption\.algorithm`,
	`fs\.s3a\.encryption\.key`, `fs\.azure\.account\.key.*`, `credential$`, `oauth.*secret`,
	`oauth.*password`, `oauth.*token`, `hadoop\.security\.sensitive-config-keys`,
}, "|"))

// redact returns p with its value redacted when its key is sensitive.
func redact(p Property) Property {
	if sensitive.MatchString(p.Key) {
		p.Value = Redacted
	}
	return p
}

// WriteXML writes props as Configuration.writeXml: the XML declaration
// Java's transformer writes, <configuration>, then a line for each
// property with its name, value, final flag and source.
func WriteXML(w io.Writer, props []Property) error {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="no"?><configuration>` + "\n")
	for _, p := range props {
		p = redact(p)
		b.WriteString("<property><name>")
		escapeText(&b, p.Key)
		b.WriteString("</name><value>")
		escapeText(&b, p.Value)
		b.WriteString("</value><final>" + strconv.FormatBool(p.Final) + "</final><source>")
		escapeText(&b, p.Source)
		b.WriteString("</source></property>\n")
	}
	b.WriteString("</configuration>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// escapeText escapes s as Java's XML serializer escapes text: &, <, >
// and carriage returns; invalid UTF-8 becomes U+FFFD, and characters XML
// cannot hold are dropped.
func escapeText(b *bytes.Buffer, s string) {
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\r':
			b.WriteString("&#13;")
		case r == '\t' || r == '\n' || r >= 0x20 && r != 0xFFFE && r != 0xFFFF && !(r >= 0xD800 && r <= 0xDFFF):
			b.WriteRune(r)
		}
	}
}

// propertyJSON is a property as dumpConfiguration writes it.
type propertyJSON struct {
	Key      string `json:"key"`
	Value    string `json:"value"`
	IsFinal  bool   `json:"isFinal"`
	Resource string `json:"resource"`
}

func toJSON(p Property) propertyJSON {
	p = redact(p)
	return propertyJSON{Key: p.Key, Value: p.Value, IsFinal: p.Final, Resource: p.Source}
}

// WriteJSON writes props as Configuration.dumpConfiguration:
// {"properties":[{"key","value","isFinal","resource"},...]}.
func WriteJSON(w io.Writer, props []Property) error {
	out := struct {
		Properties []propertyJSON `json:"properties"`
	}{Properties: make([]propertyJSON, len(props))}
	for i, p := range props {
		out.Properties[i] = toJSON(p)
	}
	return writeJSON(w, out)
}

// writeJSON writes v compact, without HTML escaping, as Jackson does.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Handler serves the configuration conf returns, at every request, as
// ConfServlet does: JSON when ?format=json (Hadoop 2) or, without a
// format, when the Accept header names json (Hadoop 3), else XML; a
// format other than json or xml is 400 "Bad format: F". ?name=KEY gives
// that property alone ({"property":{...}} in JSON), 404 when it is not
// set. Errors are {"error": "..."}. GET and HEAD only.
func Handler(conf func() []Property) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			fail(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		q := r.URL.Query()
		format := q.Get("format")
		if format == "" {
			format = "xml"
			if strings.Contains(r.Header.Get("Accept"), "json") {
				format = "json"
			}
		}
		if format != "json" && format != "xml" {
			fail(w, http.StatusBadRequest, "Bad format: "+clip(format))
			return
		}
		props := conf()
		var body bytes.Buffer
		if name, ok := q["name"]; ok && name[0] != "" {
			i := indexOf(props, name[0])
			if i < 0 {
				fail(w, http.StatusNotFound, "Property "+clip(name[0])+" not found")
				return
			}
			if format == "json" {
				writeJSON(&body, struct {
					Property propertyJSON `json:"property"`
				}{toJSON(props[i])})
			} else {
				WriteXML(&body, props[i:i+1])
			}
		} else if format == "json" {
			WriteJSON(&body, props)
		} else {
			WriteXML(&body, props)
		}
		if format == "json" {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "text/xml; charset=utf-8")
		}
		w.Header().Set("Content-Length", strconv.Itoa(body.Len()))
		if r.Method == http.MethodGet {
			w.Write(body.Bytes())
		}
	})
}

func indexOf(props []Property, key string) int {
	for i, p := range props {
		if p.Key == key {
			return i
		}
	}
	return -1
}

// fail answers status with the service's error body, {"error": msg}.
func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	writeJSON(w, reports.ErrorBody{Error: msg})
}

// clip cuts s to 48 bytes and escapes what is not printable.
func clip(s string) string {
	if len(s) > 48 {
		s = s[:48] + "…"
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
