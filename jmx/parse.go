package jmx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxDocumentBytes is the largest document Parse reads: 32 MiB. The whole
// /jmx of a NameNode of a 10 000-node cluster is a few MiB (its largest
// attribute, NameNodeInfo's LiveNodes, holds well under 1 KiB per
// DataNode); a DataNode's is a few tens of KiB. Parsing holds the decoded
// document in memory, a few times its size. A client reading a /jmx answer
// should read at most MaxDocumentBytes+1 bytes, so that Parse can tell an
// oversized document from a full one.
const MaxDocumentBytes = 32 << 20

// Parse reads a JMX JSON document, such as the /jmx of a Hadoop NameNode or
// DataNode, and returns its beans in document order.
//
// Numbers come back as json.Number, the exact text of the document, so
// that neither a 64-bit counter nor a 17-digit double is rounded; objects
// become map[string]any and arrays []any. A bare NaN, Infinity or
// -Infinity, which Hadoop writes for a non-finite double gauge
// (HADOOP-18954) though it is not JSON, is read wherever a value may stand
// and comes back as json.Number("NaN"), json.Number("Infinity") or
// json.Number("-Infinity"), so that one such gauge in any bean does not
// make the whole document unreadable. A bean's "name" must be a
// non-empty string and its "modelerType", if present, a string or null
// (read as ""); every other member is an attribute, in document order.
// Members of the document other than "beans" are ignored, except that a
// document without beans that carries Hadoop's "result" and "message"
// (an error answer) reports them.
//
// It is an error, and no beans are returned, when the document is larger
// than MaxDocumentBytes, is not valid UTF-8 or not one JSON object
// (truncated, trailing data), has no "beans" array or two, has
// a bean that is not an object, lacks a name, or names one member twice.
func Parse(data []byte) ([]Bean, error) {
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("parse jmx document: %d bytes, more than the %d allowed", len(data), MaxDocumentBytes)
	}
	if !utf8.Valid(data) {
		return nil, errors.New("parse jmx document: not valid UTF-8")
	}
	data, nf := rewriteNonFinite(data)
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	beans, err := parseDocument(d, nf)
	if err != nil {
		return nil, fmt.Errorf("parse jmx document: %w", err)
	}
	return beans, nil
}

func parseDocument(d *json.Decoder, nf *nonFinite) ([]Bean, error) {
	if err := expectDelim(d, '{', "the document is not an object"); err != nil {
		return nil, err
	}
	var (
		beans     []Bean
		haveBeans bool
		errResult string
		errMsg    string
	)
	for d.More() {
		key, err := memberName(d)
		if err != nil {
			return nil, err
		}
		switch key {
		case "beans":
			if haveBeans {
				return nil, errors.New(`"beans" given twice`)
			}
			haveBeans = true
			if beans, err = parseBeans(d, nf); err != nil {
				return nil, err
			}
		default:
			var v any
			if err := d.Decode(&v); err != nil {
				return nil, fmt.Errorf("member %q: %w", key, err)
			}
			if s, ok := v.(string); ok && key == "result" {
				errResult = s
			} else if ok && key == "message" {
				errMsg = s
			}
		}
	}
	if err := expectDelim(d, '}', "the document does not end"); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		if err == nil {
			return nil, errors.New("data after the document")
		}
		return nil, err
	}
	if !haveBeans {
		if errResult != "" || errMsg != "" {
			return nil, fmt.Errorf("no beans, the server answered %s: %s", errResult, errMsg)
		}
		return nil, errors.New(`no "beans" member`)
	}
	return beans, nil
}

func parseBeans(d *json.Decoder, nf *nonFinite) ([]Bean, error) {
	if err := expectDelim(d, '[', `"beans" is not an array`); err != nil {
		return nil, err
	}
	beans := []Bean{}
	for i := 0; d.More(); i++ {
		b, err := parseBean(d, nf)
		if err != nil {
			if b.Name != "" {
				return nil, fmt.Errorf("bean %d (%s): %w", i, b.Name, err)
			}
			return nil, fmt.Errorf("bean %d: %w", i, err)
		}
		beans = append(beans, b)
	}
	if err := expectDelim(d, ']', `"beans" does not end`); err != nil {
		return nil, err
	}
	return beans, nil
}

// parseBean reads one bean; on an error it returns what it has read, so
// that the error can name the bean.
func parseBean(d *json.Decoder, nf *nonFinite) (Bean, error) {
	var b Bean
	if err := expectDelim(d, '{', "not an object"); err != nil {
		return b, err
	}
	seen := make(map[string]struct{})
	haveName := false
	for d.More() {
		key, err := memberName(d)
		if err != nil {
			return b, err
		}
		if _, dup := seen[key]; dup {
			return b, fmt.Errorf("member %q given twice", key)
		}
		seen[key] = struct{}{}
		var v any
		if err := d.Decode(&v); err != nil {
			return b, fmt.Errorf("member %q: %w", key, err)
		}
		switch key {
		case "name":
			s, ok := v.(string)
			if !ok || s == "" {
				return b, fmt.Errorf(`"name" is %s, not a non-empty string`, kind(v))
			}
			b.Name, haveName = s, true
		case "modelerType":
			s, ok := v.(string)
			if !ok && v != nil {
				return b, fmt.Errorf(`"modelerType" is %s, not a string`, kind(v))
			}
			b.ModelerType = s
		default:
			b.Attrs = append(b.Attrs, Attr{Name: key, Value: nf.restore(v)})
		}
	}
	if err := expectDelim(d, '}', "the bean does not end"); err != nil {
		return b, err
	}
	if !haveName {
		return b, errors.New(`no "name"`)
	}
	return b, nil
}

// expectDelim reads the next token and fails with what unless it is want.
func expectDelim(d *json.Decoder, want json.Delim, what string) error {
	tok, err := d.Token()
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != want {
		return fmt.Errorf("%s: found %s", what, kind(tok))
	}
	return nil
}

// memberName reads the name of an object member.
func memberName(d *json.Decoder) (string, error) {
	tok, err := d.Token()
	if err == io.EOF {
		return "", io.ErrUnexpectedEOF
	}
	if err != nil {
		return "", err
	}
	key, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("member name is %s", kind(tok))
	}
	return key, nil
}

// kind names the JSON kind of a decoded value or token, for errors.
func kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case json.Delim:
		return fmt.Sprintf("%q", v.String())
	default:
		return fmt.Sprintf("a %T", v)
	}
}
