package jmx

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readFixture(t testing.TB, file string) []Bean {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	beans, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", file, err)
	}
	return beans
}

func attr(t *testing.T, beans []Bean, bean, name string) any {
	t.Helper()
	b, ok := Find(beans, bean)
	if !ok {
		t.Fatalf("no bean %s", bean)
	}
	v, ok := b.Attr(name)
	if !ok {
		t.Fatalf("bean %s has no %s", bean, name)
	}
	return v
}

func TestParseNameNodeCapture(t *testing.T) {
	beans := readFixture(t, "namenode-jmx.json")
	want := []string{
		"JMImplementation:type=MBeanServerDelegate",
		"java.lang:type=Runtime",
		"java.lang:type=Memory",
		"Hadoop:service=NameNode,name=JvmMetrics",
		NameNodeStatusBean,
		FSNamesystemStateBean,
		"Hadoop:service=NameNode,name=NameNodeInfo",
	}
	if got := names(beans); !reflect.DeepEqual(got, want) {
		t.Fatalf("beans %q, want %q", got, want)
	}
	status, _ := Find(beans, NameNodeStatusBean)
	if status.ModelerType != "org.apache.hadoop.hdfs.server.namenode.NameNode" {
		t.Fatalf("modelerType %q", status.ModelerType)
	}
	var order []string
	for _, a := range status.Attrs {
		order = append(order, a.Name)
	}
	wantOrder := []string{"NNRole", "HostAndPort", "SecurityEnabled", "LastHATransitionTime",
		"BytesWithFutureGenerationStamps", "SlowPeersReport", "SlowDisksReport", "State"}
	if !reflect.DeepEqual(order, wantOrder) {
		t.Fatalf("attribute order %q, want %q", order, wantOrder)
	}
	f := func(bean, name string, want any) {
		t.Helper()
		if got := attr(t, beans, bean, name); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s.%s = %#v, want %#v", bean, name, got, want)
		}
	}
	f(NameNodeStatusBean, "State", "active")
	f(NameNodeStatusBean, "HostAndPort", "nn1.example.com:8020")
	f(NameNodeStatusBean, "SecurityEnabled", false)
	f(NameNodeStatusBean, "LastHATransitionTime", json.Number("1714557912345"))
	f(NameNodeStatusBean, "SlowDisksReport", nil)
	f(FSNamesystemStateBean, "NumLiveDataNodes", json.Number("11"))
	f(FSNamesystemStateBean, "NumDeadDataNodes", json.Number("1"))
	f(FSNamesystemStateBean, "CapacityTotal", json.Number("47244640256000"))
	f(FSNamesystemStateBean, "TotalSyncTimes", "151 ")
	// Numbers keep their text: Java's "-1.0" is not Go's "-1".
	f("Hadoop:service=NameNode,name=JvmMetrics", "MemNonHeapMaxM", json.Number("-1.0"))
	f("Hadoop:service=NameNode,name=JvmMetrics", "tag.SessionId", nil)
	// CompositeData is an object, TabularData an array of key/value objects.
	f("java.lang:type=Memory", "HeapMemoryUsage", map[string]any{
		"committed": json.Number("1052770304"), "init": json.Number("268435456"),
		"max": json.Number("3817865216"), "used": json.Number("327845672"),
	})
	props := attr(t, beans, "java.lang:type=Runtime", "SystemProperties").([]any)
	if first := props[0].(map[string]any); first["key"] != "java.version" || first["value"] != "1.8.0_392" {
		t.Fatalf("SystemProperties[0] = %v", first)
	}
	// SlowPeersReport is a string holding the /slowpeers JSON.
	var report []struct {
		SlowNode                          string
		SlowPeerLatencyWithReportingNodes []struct {
			ReportingNode   string
			ReportedLatency float64
		}
	}
	if err := json.Unmarshal([]byte(attr(t, beans, NameNodeStatusBean, "SlowPeersReport").(string)), &report); err != nil {
		t.Fatal(err)
	}
	if len(report) != 1 || report[0].SlowNode != "10.0.0.5:9864" || len(report[0].SlowPeerLatencyWithReportingNodes) != 2 {
		t.Fatalf("SlowPeersReport = %+v", report)
	}
}

func TestParseDataNodeCapture(t *testing.T) {
	beans := readFixture(t, "datanode-jmx.json")
	info, ok := Find(beans, DataNodeInfoBean)
	if !ok || info.ModelerType != "org.apache.hadoop.hdfs.server.datanode.DataNode" {
		t.Fatalf("DataNodeInfo: %v %q", ok, info.ModelerType)
	}
	if v, _ := info.Attr(SendPacketDownstreamAvgInfo); !strings.HasPrefix(v.(string), `{"[10.0.0.3:9864]RollingAvgTime":`) {
		t.Fatalf("SendPacketDownstreamAvgInfo = %v", v)
	}
	if v, _ := info.Attr("XceiverCount"); v != json.Number("4") {
		t.Fatalf("XceiverCount = %#v", v)
	}
}

// Numbers survive Parse exactly, where float64 would round them.
func TestParseKeepsNumbersExact(t *testing.T) {
	doc := `{"beans":[{"name":"a:b=c","modelerType":"T","Big":9007199254740993,"Fine":0.1000000000000000055511151231257827,"Exp":1.0E10,"Neg":-0}]}`
	beans, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"Big": "9007199254740993", "Fine": "0.1000000000000000055511151231257827", "Exp": "1.0E10", "Neg": "-0"} {
		if v, _ := beans[0].Attr(name); v != json.Number(want) {
			t.Fatalf("%s = %#v, want %s", name, v, want)
		}
	}
	out, err := beans[0].MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := doc[len(`{"beans":[`) : len(doc)-len(`]}`)]; string(out) != want {
		t.Fatalf("MarshalJSON = %s, want %s", out, want)
	}
}

func TestParseMalformed(t *testing.T) {
	capture, err := os.ReadFile(filepath.Join("testdata", "namenode-jmx.json"))
	if err != nil {
		t.Fatal(err)
	}
	refuses(t, "empty", ``, "unexpected EOF")
	refuses(t, "whitespace", " \n", "unexpected EOF")
	refuses(t, "truncated capture", string(capture[:len(capture)/2]), "unexpected EOF")
	refuses(t, "truncated before the end", string(capture[:len(capture)-1]), "unexpected EOF")
	refuses(t, "truncated in beans", `{"beans":[`, "unexpected EOF")
	refuses(t, "not JSON", `<html>Error 500</html>`, "invalid character")
	refuses(t, "not an object", `[{"name":"a:b=c"}]`, "not an object")
	refuses(t, "a string", `"beans"`, "not an object")
	refuses(t, "no beans", `{}`, `no "beans"`)
	refuses(t, "Hadoop error answer", `{"result":"ERROR","message":"query format is not as expected."}`,
		"server answered ERROR: query format is not as expected.")
	refuses(t, "beans not an array", `{"beans":{"name":"a:b=c"}}`, `"beans" is not an array`)
	refuses(t, "beans null", `{"beans":null}`, `"beans" is not an array`)
	refuses(t, "beans twice", `{"beans":[],"beans":[]}`, "twice")
	refuses(t, "bean not an object", `{"beans":[1]}`, "bean 0: not an object")
	refuses(t, "bean an array", `{"beans":[{"name":"a:b=c"},[]]}`, "bean 1: not an object")
	refuses(t, "no name", `{"beans":[{"modelerType":"T","X":1}]}`, `no "name"`)
	refuses(t, "empty name", `{"beans":[{"name":""}]}`, `"name" is a string, not a non-empty string`)
	refuses(t, "name not a string", `{"beans":[{"name":7}]}`, `"name" is a number`)
	refuses(t, "modelerType not a string", `{"beans":[{"name":"a:b=c","modelerType":[]}]}`, `"modelerType" is an array`)
	refuses(t, "attribute twice", `{"beans":[{"name":"a:b=c","X":1,"X":2}]}`, `bean 0 (a:b=c): member "X" given twice`)
	refuses(t, "name twice", `{"beans":[{"name":"a:b=c","name":"d:e=f"}]}`, `member "name" given twice`)
	refuses(t, "trailing comma", `{"beans":[{"name":"a:b=c",}]}`, "invalid character '}'")
	refuses(t, "missing colon", `{"beans" [] }`, "invalid character '['")
	refuses(t, "single quotes", `{'beans':[]}`, "invalid character")
	refuses(t, "trailing data", `{"beans":[]} {"beans":[]}`, "data after the document")
	refuses(t, "trailing garbage", `{"beans":[]}x`, "invalid character 'x'")
	refuses(t, "JSONP wrapping", `cb({"beans":[]})`, "invalid character 'c'")
	refuses(t, "invalid UTF-8", "{\"beans\":[{\"name\":\"a:b=\xff\"}]}", "not valid UTF-8")
	refuses(t, "too deep", `{"beans":[{"name":"a:b=c","D":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+`}]}`, "exceeded max depth")
	refuses(t, "bad member in the document", `{"other":[1,}`, `member "other"`)
	refuses(t, "too large", `{"beans":[]}`+strings.Repeat(" ", MaxDocumentBytes), "more than the")
}

func TestParseAcceptsWhatHadoopMayWrite(t *testing.T) {
	parsesTo(t, `{"beans":[]}`, []Bean{})
	parsesTo(t, `{"beans" : [ ]}`, []Bean{})
	// modelerType may be null (a commons-modeler bean without one) or absent.
	parsesTo(t, `{"beans":[{"name":"a:b=c","modelerType":null}]}`, []Bean{{Name: "a:b=c"}})
	parsesTo(t, `{"beans":[{"name":"a:b=c"}]}`, []Bean{{Name: "a:b=c"}})
	// name and modelerType may come anywhere; attributes keep their order.
	parsesTo(t, `{"beans":[{"Z":1,"modelerType":"T","name":"a:b=c","A":"x"}]}`,
		[]Bean{{Name: "a:b=c", ModelerType: "T", Attrs: []Attr{{"Z", json.Number("1")}, {"A", "x"}}}})
	// Other members of the document are ignored; so is Hadoop's error bean
	// in a 404 document, which reads as attributes.
	parsesTo(t, `{"x":{"y":[1]},"beans":[{"name":"a:b=c","result":"ERROR"}],"result":"OK"}`,
		[]Bean{{Name: "a:b=c", Attrs: []Attr{{"result", "ERROR"}}}})
	// The document Write sends for qry matching nothing.
	rec := serve(http.MethodGet, "/jmx?qry=x:y=z", nil)
	if beans, err := Parse(rec.Body.Bytes()); err != nil || len(beans) != 0 {
		t.Fatalf("Parse(%s) = %v, %v", rec.Body, beans, err)
	}
	// Exactly MaxDocumentBytes is allowed.
	doc := `{"beans":[]}`
	if _, err := Parse([]byte(doc + strings.Repeat(" ", MaxDocumentBytes-len(doc)))); err != nil {
		t.Fatalf("Parse of MaxDocumentBytes: %v", err)
	}
}

func BenchmarkParse(b *testing.B) {
	for _, file := range []string{"namenode-jmx.json", "datanode-jmx.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(file, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzParse checks that Parse never panics and that what it accepts is
// consistent: re-encoding the beans with MarshalJSON never fails and parses
// back to the same beans, and Write's answer for them always parses.
func FuzzParse(f *testing.F) {
	for _, file := range []string{"namenode-jmx.json", "datanode-jmx.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"beans":[{"name":"a:b=c","modelerType":null,"X":[1,{"y":null}],"Y":1e400}]}`))
	f.Add([]byte(`{"beans":[{"name":"a:b=c","G":NaN}]}`))
	f.Add([]byte(`{"beans":[{"name":"a:b=c","G":[-Infinity,{"x":Infinity}],"S":"NaN\"NaN"}]}`))
	f.Add([]byte(`{"result":"ERROR","message":"m"}`))
	f.Add([]byte(`{"beans":[]}{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		beans, err := Parse(data)
		if err != nil {
			if beans != nil {
				t.Fatal("Parse returned beans with its error")
			}
			return
		}
		rec := serve(http.MethodGet, "/jmx", beans)
		if rec.Code != 200 {
			t.Fatalf("Write answered %d", rec.Code)
		}
		if _, err := Parse(rec.Body.Bytes()); err != nil {
			t.Fatalf("Write's answer does not parse: %v\n%s", err, rec.Body)
		}
		if bytes.Contains(data, []byte("NaN")) || bytes.Contains(data, []byte("Infinity")) {
			return // a non-finite json.Number is not JSON: MarshalJSON refuses it
		}
		doc, err := json.Marshal(struct{ Beans []Bean }{beans})
		if err != nil {
			t.Fatalf("re-encoding parsed beans: %v", err)
		}
		doc = bytes.Replace(doc, []byte(`{"Beans":`), []byte(`{"beans":`), 1)
		again, err := Parse(doc)
		if err != nil {
			t.Fatalf("Parse(MarshalJSON(Parse(x))): %v\n%s", err, doc)
		}
		if !reflect.DeepEqual(again, beans) {
			t.Fatalf("Parse(MarshalJSON(Parse(x))) differs:\n%#v\n%#v", again, beans)
		}
	})
}

// parsesTo checks that Parse reads doc as want.
func parsesTo(t *testing.T, doc string, want []Bean) {
	t.Helper()
	got, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse(%s): %v", doc, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse(%s) = %#v, want %#v", doc, got, want)
	}
}

// refuses checks that Parse refuses doc, why, with no beans and an error
// of its own that contains wantErr.
func refuses(t *testing.T, why, doc, wantErr string) {
	t.Helper()
	beans, err := Parse([]byte(doc))
	if err == nil {
		t.Fatalf("%s: Parse(%q) = %v, want an error", why, doc, names(beans))
	}
	if beans != nil {
		t.Fatalf("%s: Parse returned beans with its error", why)
	}
	if !strings.Contains(err.Error(), wantErr) || !strings.HasPrefix(err.Error(), "parse jmx document: ") {
		t.Fatalf("%s: error %q, want it to contain %q", why, err, wantErr)
	}
}
