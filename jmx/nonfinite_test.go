package jmx

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Reference: HADOOP-18954. JMXJsonServlet writes a Number with
// jg.writeNumber(n.toString()), so a NaN or infinite double gauge is
// written bare; it reads as a json.Number that strconv.ParseFloat
// understands, at any depth, and NaN inside a string stays text.
func TestParseNonFinite(t *testing.T) {
	f := func(doc string, want []Bean) {
		t.Helper()
		got, err := Parse([]byte(doc))
		if err != nil {
			t.Fatalf("Parse(%s): %v", doc, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse(%s) = %#v, want %#v", doc, got, want)
		}
	}
	f(`{"beans":[{"name":"a:b=c","G":NaN,"H":[Infinity, -Infinity],"I":{"j":NaN},"S":"NaN, Infinity"}]}`,
		[]Bean{{Name: "a:b=c", Attrs: []Attr{{"G", json.Number("NaN")},
			{"H", []any{json.Number("Infinity"), json.Number("-Infinity")}},
			{"I", map[string]any{"j": json.Number("NaN")}}, {"S", "NaN, Infinity"}}}})
	f("{\"beans\":[{\"name\":\"a:b=c\",\"G\" :\n NaN\n,\"S\":\"\\\"NaN\"}]}",
		[]Bean{{Name: "a:b=c", Attrs: []Attr{{"G", json.Number("NaN")}, {"S", `"NaN`}}}})
	// The literals that stand for them cannot clash with the document's own.
	f(`{"beans":[{"name":"a:b=c","G":NaN,"X":1E+090,"Y":1E+0990,"Z":"E+09990"}]}`,
		[]Bean{{Name: "a:b=c", Attrs: []Attr{{"G", json.Number("NaN")},
			{"X", json.Number("1E+090")}, {"Y", json.Number("1E+0990")}, {"Z", "E+09990"}}}})

	bad := func(why, doc, want string) {
		t.Helper()
		beans, err := Parse([]byte(doc))
		if err == nil || beans != nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: Parse(%s) = %v, %v; want an error with %q", why, doc, beans, err, want)
		}
	}
	bad("NaN glued to a number", `{"beans":[{"name":"a:b=c","G":1NaN}]}`, "invalid character 'N'")
	bad("NaN glued to a word", `{"beans":[{"name":"a:b=c","G":NaNa}]}`, "invalid character 'N'")
	bad("NaN as a member name", `{"beans":[{"name":"a:b=c",NaN:1}]}`, "invalid character 'N'")
	bad("NaN as the name", `{"beans":[{"name":NaN}]}`, `"name" is a number`)
	bad("lower-case nan", `{"beans":[{"name":"a:b=c","G":nan}]}`, "invalid character 'a'")
	bad("a bare NaN document", `NaN`, "invalid character 'N'")
}
