package jmx

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// maxMarshalDepth bounds the nesting MarshalJackson follows, so that a
// cyclic value is an error rather than a stack overflow.
const maxMarshalDepth = 1000

// MarshalJackson returns the compact JSON of v exactly as Hadoop's Jackson
// ObjectMapper (new ObjectMapper().writer(), the WRITER of SlowPeerTracker,
// SlowDiskTracker and MetricsJsonBuilder) writes the same Java value:
//
//   - float64 as Java's Double.toString (FormatDouble: 25.0, 1.0E-4),
//     float32 as Float.toString; NaN, Infinity and -Infinity as the
//     strings "NaN", "Infinity", "-Infinity" (Jackson's
//     QUOTE_NON_NUMERIC_NUMBERS, on by default);
//   - integers, bools and nil (nil pointers, slices, maps, interfaces) as
//     encoding/json writes them;
//   - strings with only Jackson's escapes: '"', '\\', and control
//     characters (\b \t \n \f \r, others \u00XX with upper-case hex); no
//     HTML escaping of < > &, U+2028 and U+2029 as they are; invalid UTF-8
//     becomes U+FFFD;
//   - structs with their exported fields in declaration order, named and
//     skipped by the `json` tag (a name, "-", omitempty, omitzero), as
//     Jackson writes @JsonProperty fields in declaration order;
//   - maps with string keys in sorted key order (Jackson writes a Java map
//     in its iteration order, which for Hadoop's HashMaps is not
//     specified; sorted is one such order, and a stable one);
//   - json.Number verbatim, json.RawMessage compacted, []byte as base64.
//
// Anything else (channels, functions, complex numbers, maps with other
// keys, embedded struct fields, the ",string" option, other
// json.Marshalers) is an error.
func MarshalJackson(v any) ([]byte, error) {
	var e jacksonEncoder
	if err := e.value(reflect.ValueOf(v), 0); err != nil {
		return nil, fmt.Errorf("marshal as jackson: %w", err)
	}
	return e.buf, nil
}

// jacksonEncoder appends Jackson's JSON to buf.
type jacksonEncoder struct {
	buf []byte
}

var (
	numberType     = reflect.TypeFor[json.Number]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
)

func (e *jacksonEncoder) value(v reflect.Value, depth int) error {
	if depth > maxMarshalDepth {
		return errors.New("nested too deeply (a cycle?)")
	}
	if !v.IsValid() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	switch t := v.Type(); {
	case t == numberType:
		n := v.String()
		if !json.Valid([]byte(n)) || n == "" || (n[0] != '-' && (n[0] < '0' || n[0] > '9')) || strings.ContainsAny(n, " \t\r\n") {
			return fmt.Errorf("json.Number %q is not a number", n)
		}
		e.buf = append(e.buf, n...)
		return nil
	case t == rawMessageType:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		raw, err := compactJSON(v.Bytes())
		if err != nil {
			return fmt.Errorf("json.RawMessage: %w", err)
		}
		e.buf = append(e.buf, raw...)
		return nil
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && t.Implements(marshalerType):
		return fmt.Errorf("%s has its own MarshalJSON, which Jackson would not call", t)
	}
	switch v.Kind() {
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		e.float(v)
	case reflect.String:
		e.buf = appendJacksonString(e.buf, v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.value(v.Elem(), depth+1)
	case reflect.Slice:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			e.buf = appendJacksonString(e.buf, base64.StdEncoding.EncodeToString(v.Bytes()))
			return nil
		}
		return e.array(v, depth)
	case reflect.Array:
		return e.array(v, depth)
	case reflect.Map:
		return e.mapping(v, depth)
	case reflect.Struct:
		return e.object(v, depth)
	default:
		return fmt.Errorf("cannot write a %s", v.Type())
	}
	return nil
}

func (e *jacksonEncoder) float(v reflect.Value) {
	bits := 64
	if v.Kind() == reflect.Float32 {
		bits = 32
	}
	f := v.Float()
	if f != f || f > maxFloat(bits) || f < -maxFloat(bits) {
		e.buf = append(e.buf, '"')
		e.buf = appendJava(e.buf, f, bits)
		e.buf = append(e.buf, '"')
		return
	}
	e.buf = appendJava(e.buf, f, bits)
}

func maxFloat(bits int) float64 {
	if bits == 32 {
		return 3.40282346638528859811704183484516925440e+38
	}
	return 1.79769313486231570814527423731704356798070e+308
}

func (e *jacksonEncoder) array(v reflect.Value, depth int) error {
	e.buf = append(e.buf, '[')
	for i := range v.Len() {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.value(v.Index(i), depth+1); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

func (e *jacksonEncoder) mapping(v reflect.Value, depth int) error {
	if v.Type().Key().Kind() != reflect.String {
		return fmt.Errorf("cannot write a map with %s keys", v.Type().Key())
	}
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendJacksonString(e.buf, k.String())
		e.buf = append(e.buf, ':')
		if err := e.value(v.MapIndex(k), depth+1); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

func (e *jacksonEncoder) object(v reflect.Value, depth int) error {
	t := v.Type()
	e.buf = append(e.buf, '{')
	first := true
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return fmt.Errorf("%s.%s: embedded fields are not supported", t, sf.Name)
		}
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fv := v.Field(i)
		var omitEmpty, omitZero bool
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				omitEmpty = true
			case "omitzero":
				omitZero = true
			case "":
			default:
				return fmt.Errorf("%s.%s: json option %q is not supported", t, sf.Name, o)
			}
		}
		if (omitZero && fv.IsZero()) || (omitEmpty && isEmpty(fv)) {
			continue
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = appendJacksonString(e.buf, name)
		e.buf = append(e.buf, ':')
		if err := e.value(fv, depth+1); err != nil {
			return fmt.Errorf("%s.%s: %w", t, sf.Name, err)
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// isEmpty is encoding/json's omitempty rule.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return v.IsZero()
	}
	return false
}
