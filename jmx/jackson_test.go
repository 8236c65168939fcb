package jmx

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
)

// Reference: Jackson's DefaultPrettyPrinter, as JMXJsonServlet uses it
// (jg.useDefaultPrettyPrinter()).
func TestJacksonIndent(t *testing.T) {
	f := func(compact, want string) {
		t.Helper()
		if got := string(jacksonIndent(nil, []byte(compact))); got != want {
			t.Fatalf("jacksonIndent(%s) =\n%s\nwant\n%s", compact, got, want)
		}
	}
	f(`{}`, `{ }`)
	f(`[]`, `[ ]`)
	f(`{"beans":[]}`, "{\n  \"beans\" : [ ]\n}")
	f(`{"a":1,"b":"x"}`, "{\n  \"a\" : 1,\n  \"b\" : \"x\"\n}")
	f(`[1,2,3]`, `[ 1, 2, 3 ]`)
	f(`[[1,[]],{}]`, `[ [ 1, [ ] ], { } ]`)
	f(`{"beans":[{"name":"a:b=c","modelerType":"T","M":{"committed":1,"used":2},"L":[{"key":"k","value":"v"},{"key":"k2","value":"v2"}]},{"name":"d:e=f","modelerType":"U"}]}`,
		`{
  "beans" : [ {
    "name" : "a:b=c",
    "modelerType" : "T",
    "M" : {
      "committed" : 1,
      "used" : 2
    },
    "L" : [ {
      "key" : "k",
      "value" : "v"
    }, {
      "key" : "k2",
      "value" : "v2"
    } ]
  }, {
    "name" : "d:e=f",
    "modelerType" : "U"
  } ]
}`)
	// Structural characters inside strings, escapes included, stay as they are.
	f(`{"a\"{[,:":"}],\\","b":"\\\""}`, "{\n  \"a\\\"{[,:\" : \"}],\\\\\",\n  \"b\" : \"\\\\\\\"\"\n}")
}

// The layout changes only whitespace: compacting it gives the input back.
func TestJacksonIndentIsWhitespaceOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch k := rng.IntN(7); {
		case depth > 3 || k == 0:
			return rng.IntN(1000) - 500
		case k == 1:
			return []string{"", "x", `"{[,:]}"`, "a\\b", "é\n"}[rng.IntN(5)]
		case k == 2:
			return rng.IntN(2) == 0
		case k == 3:
			return nil
		case k == 4:
			a := make([]any, rng.IntN(4))
			for i := range a {
				a[i] = gen(depth + 1)
			}
			return a
		default:
			m := map[string]any{}
			for i := range rng.IntN(4) {
				m["k"+strconv.Itoa(i)+`:,"`] = gen(depth + 1)
			}
			return m
		}
	}
	for range 2000 {
		src, err := json.Marshal(gen(0))
		if err != nil {
			t.Fatal(err)
		}
		out := jacksonIndent(nil, src)
		var back bytes.Buffer
		if err := json.Compact(&back, out); err != nil {
			t.Fatalf("jacksonIndent(%s) is not JSON: %v\n%s", src, err, out)
		}
		if !bytes.Equal(back.Bytes(), src) {
			t.Fatalf("jacksonIndent(%s) compacts to %s", src, back.Bytes())
		}
	}
}

// jacksonIndent only ever sees encoding/json's output, but it must not
// panic on anything.
func FuzzJacksonIndent(f *testing.F) {
	f.Add([]byte(`{"beans":[{"name":"a:b=c"}]}`))
	f.Add([]byte(`}}]]"`))
	f.Add([]byte(`"\`))
	f.Fuzz(func(t *testing.T, src []byte) {
		out := jacksonIndent(nil, src)
		if json.Valid(src) && bytes.Equal(bytes.TrimSpace(src), src) {
			var compact bytes.Buffer
			if json.Compact(&compact, src) == nil && bytes.Equal(compact.Bytes(), src) && !json.Valid(out) {
				t.Fatalf("jacksonIndent(%s) = %s, not JSON", src, out)
			}
		}
	})
}
