package jmx

import (
	"encoding/json"
	"testing"
)

// Reference: HADOOP-18954. JMXJsonServlet writes a Number with
// jg.writeNumber(n.toString()), so a NaN or infinite double gauge is
// written bare; it reads as a json.Number that strconv.ParseFloat
// understands, at any depth, and NaN inside a string stays text.
func TestParseNonFinite(t *testing.T) {
	parsesTo(t, `{"beans":[{"name":"a:b=c","G":NaN,"H":[Infinity, -Infinity],"I":{"j":NaN},"S":"NaN, Infinity"}]}`,
		[]Bean{{Name: "a:b=c", Attrs: []Attr{{"G", json.Number("NaN")},
			{"H", []any{json.Number("Infinity"), json.Number("-Infinity")}},
			{"I", map[string]any{"j": json.Number("NaN")}}, {"S", "NaN, Infinity"}}}})
	parsesTo(t, "{\"beans\":[{\"name\":\"a:b=c\",\"G\" :\n NaN\n,\"S\":\"\\\"NaN\"}]}",
		[]Bean{{Name: "a:b=c", Attrs: []Attr{{"G", json.Number("NaN")}, {"S", `"NaN`}}}})
	// The literals that stand for them cannot clash with the document's own.
	parsesTo(t, `{"beans":[{"name":"a:b=c","G":NaN,"X":1E+090,"Y":1E+0990,"Z":"E+09990"}]}`,
		[]Bean{{Name: "a:b=c", Attrs: []Attr{{"G", json.Number("NaN")},
			{"X", json.Number("1E+090")}, {"Y", json.Number("1E+0990")}, {"Z", "E+09990"}}}})

	refuses(t, "NaN glued to a number", `{"beans":[{"name":"a:b=c","G":1NaN}]}`, "invalid character 'N'")
	refuses(t, "NaN glued to a word", `{"beans":[{"name":"a:b=c","G":NaNa}]}`, "invalid character 'N'")
	refuses(t, "NaN as a member name", `{"beans":[{"name":"a:b=c",NaN:1}]}`, "invalid character 'N'")
	refuses(t, "NaN as the name", `{"beans":[{"name":NaN}]}`, `"name" is a number`)
	refuses(t, "lower-case nan", `{"beans":[{"name":"a:b=c","G":nan}]}`, "invalid character 'a'")
	refuses(t, "a bare NaN document", `NaN`, "invalid character 'N'")
}
