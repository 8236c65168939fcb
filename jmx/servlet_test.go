package jmx

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// servletBeans is a small NameNode /jmx, built as the namenode package
// builds it: plain Go values.
var servletBeans = []Bean{
	{
		Name:        NameNodeStatusBean,
		ModelerType: "org.apache.hadoop.hdfs.server.namenode.NameNode",
		Attrs: []Attr{
			{"State", "active"},
			{"SlowPeersReport", "[]"},
			{"SlowDisksReport", nil},
		},
	},
	{
		Name:        FSNamesystemStateBean,
		ModelerType: "org.apache.hadoop.hdfs.server.namenode.FSNamesystem",
		Attrs: []Attr{
			{"NumLiveDataNodes", 11},
			{"NumDeadDataNodes", 1},
		},
	},
}

const (
	statusDoc = `{
    "name" : "Hadoop:service=NameNode,name=NameNodeStatus",
    "modelerType" : "org.apache.hadoop.hdfs.server.namenode.NameNode",
    "State" : "active",
    "SlowPeersReport" : "[]",
    "SlowDisksReport" : null
  }`
	stateDoc = `{
    "name" : "Hadoop:service=NameNode,name=FSNamesystemState",
    "modelerType" : "org.apache.hadoop.hdfs.server.namenode.FSNamesystem",
    "NumLiveDataNodes" : 11,
    "NumDeadDataNodes" : 1
  }`
	noBeans = "{\n  \"beans\" : [ ]\n}"
)

func beansDoc(beans ...string) string {
	if len(beans) == 0 {
		return noBeans
	}
	doc := "{\n  \"beans\" : [ "
	for i, b := range beans {
		if i > 0 {
			doc += ", "
		}
		doc += b
	}
	return doc + " ]\n}"
}

func errorBody(message string) string {
	m, _ := json.Marshal(message)
	return "{\n  \"result\" : \"ERROR\",\n  \"message\" : " + string(m) + "\n}"
}

func serve(method, target string, beans []Bean) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	Write(rec, httptest.NewRequest(method, target, nil), beans)
	return rec
}

// Reference: JMXJsonServlet.doGet and listBeans.
func TestWriteAnswers(t *testing.T) {
	f := func(target string, wantStatus int, wantBody string) {
		t.Helper()
		rec := serve(http.MethodGet, target, servletBeans)
		if rec.Code != wantStatus || rec.Body.String() != wantBody {
			t.Fatalf("GET %s = %d\n%s\nwant %d\n%s", target, rec.Code, rec.Body, wantStatus, wantBody)
		}
		h := rec.Header()
		for k, v := range map[string]string{
			"Content-Type":                 ContentType,
			"Access-Control-Allow-Methods": "GET",
			"Access-Control-Allow-Origin":  "*",
			"Cache-Control":                "no-cache",
			"Pragma":                       "no-cache",
			"Content-Length":               strconv.Itoa(len(wantBody)),
		} {
			if got := h.Get(k); got != v {
				t.Fatalf("GET %s: header %s = %q, want %q", target, k, got, v)
			}
		}
	}
	errorBean := func(name, modelerType, attr string) string {
		return "{\n    \"name\" : \"" + name + "\",\n    \"modelerType\" : \"" + modelerType +
			"\",\n    \"result\" : \"ERROR\",\n    \"message\" : \"No attribute with name " + attr + " was found.\"\n  }"
	}
	stateOnly := "{\n    \"name\" : \"Hadoop:service=NameNode,name=NameNodeStatus\",\n" +
		"    \"modelerType\" : \"org.apache.hadoop.hdfs.server.namenode.NameNode\",\n    \"State\" : \"active\"\n  }"
	nnType := "org.apache.hadoop.hdfs.server.namenode.NameNode"
	fsType := "org.apache.hadoop.hdfs.server.namenode.FSNamesystem"

	// qry: default *:*, exact names, patterns; no match is 200 and no beans.
	f("/jmx", 200, beansDoc(statusDoc, stateDoc))
	f("/jmx?qry=", 200, beansDoc(statusDoc, stateDoc))
	f("/jmx?qry=*:*", 200, beansDoc(statusDoc, stateDoc))
	f("/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState", 200, beansDoc(stateDoc))
	f("/jmx?qry=Hadoop:name=FSNamesystemState,service=NameNode", 200, beansDoc(stateDoc))
	f("/jmx?qry=Hadoop:service=NameNode,*", 200, beansDoc(statusDoc, stateDoc))
	f("/jmx?qry=Hadoop:service=NameNode,name=NameNode*", 200, beansDoc(statusDoc))
	f("/jmx?qry=Hadoop:service=DataNode,name=DataNodeInfo", 200, noBeans)
	f("/jmx?qry=java.lang:*", 200, noBeans)
	// The first of repeated parameters counts, as ServletRequest.getParameter.
	f("/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState&qry=*:*", 200, beansDoc(stateDoc))
	// JSONP is gone from trunk: callback changes nothing.
	f("/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState&callback=alert", 200, beansDoc(stateDoc))
	// A malformed qry: 400.
	f("/jmx?qry=Hadoop", 400, errorBody(`malformed qry "Hadoop": key properties cannot be empty`))
	f("/jmx?qry=*", 400, errorBody(`malformed qry "*": key properties cannot be empty`))
	f("/jmx?qry=Hadoop:k=v,", 400, errorBody(`malformed qry "Hadoop:k=v,": invalid ending comma`))
	f("/jmx?qry=%zz", 400, errorBody(`malformed query string: invalid URL escape "%zz"`))

	// get: one attribute of every matching bean.
	f("/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus::State", 200, beansDoc(stateOnly))
	f("/jmx?get=Hadoop:name=NameNodeStatus,service=NameNode::State", 200, beansDoc(stateOnly))
	f("/jmx?get=Hadoop:service=NameNode,name=FSNamesystemState::NumDeadDataNodes", 200, beansDoc(
		"{\n    \"name\" : \"Hadoop:service=NameNode,name=FSNamesystemState\",\n    \"modelerType\" : \""+fsType+
			"\",\n    \"NumDeadDataNodes\" : 1\n  }"))
	// get wins over qry.
	f("/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState&get=Hadoop:service=NameNode,name=NameNodeStatus::State",
		200, beansDoc(stateOnly))
	// No bean matches: 200, no beans.
	f("/jmx?get=Hadoop:service=Nope,name=Nope::State", 200, noBeans)
	// Not two parts around "::" (Java's split drops trailing empty parts): 400.
	const badFormat = "query format is not as expected."
	f("/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus::", 400, errorBody(badFormat))
	f("/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus", 400, errorBody(badFormat))
	f("/jmx?get=", 400, errorBody(badFormat))
	f("/jmx?get=::", 400, errorBody(badFormat))
	f("/jmx?get=a:b=c::State::x", 400, errorBody(badFormat))
	f("/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus::::State", 400, errorBody(badFormat))
	// "X::State::" splits into two parts in Java.
	f("/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus::State::", 200, beansDoc(stateOnly))
	// A malformed bean name: 400.
	f("/jmx?get=Hadoop::State", 400, errorBody(`malformed bean name "Hadoop": key properties cannot be empty`))
	// A missing or null attribute: the error bean ends the array, 404.
	f("/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus::Nope", 404,
		beansDoc(errorBean(NameNodeStatusBean, nnType, "Nope")))
	f("/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus::SlowDisksReport", 404,
		beansDoc(errorBean(NameNodeStatusBean, nnType, "SlowDisksReport")))
	f("/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus::name", 404,
		beansDoc(errorBean(NameNodeStatusBean, nnType, "name")))
	f("/jmx?get=Hadoop:service=NameNode,*::State", 404,
		beansDoc(stateOnly, errorBean(FSNamesystemStateBean, fsType, "State")))
	// An empty bean name is *:*.
	f("/jmx?get=::State", 404, beansDoc(stateOnly, errorBean(FSNamesystemStateBean, fsType, "State")))
}

// Reference: JMXJsonServlet.doTrace (405) and HttpServlet's defaults for
// the methods JMXJsonServlet does not implement.
func TestWriteMethods(t *testing.T) {
	get := serve(http.MethodGet, "/jmx", servletBeans)
	f := func(method string, wantStatus int) {
		t.Helper()
		rec := serve(method, "/jmx", servletBeans)
		if rec.Code != wantStatus {
			t.Fatalf("%s /jmx = %d, want %d", method, rec.Code, wantStatus)
		}
		switch wantStatus {
		case http.StatusMethodNotAllowed:
			if rec.Header().Get("Allow") != "GET, HEAD, OPTIONS" {
				t.Fatalf("%s /jmx: Allow = %q", method, rec.Header().Get("Allow"))
			}
			if bytes.Contains(rec.Body.Bytes(), []byte("beans")) {
				t.Fatalf("%s /jmx answered beans: %s", method, rec.Body)
			}
		case http.StatusOK:
			if method == http.MethodOptions && rec.Header().Get("Allow") != "GET, HEAD, OPTIONS" {
				t.Fatalf("OPTIONS /jmx: Allow = %q", rec.Header().Get("Allow"))
			}
		}
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "TRACE", "CONNECT", "BREW"} {
		f(m, http.StatusMethodNotAllowed)
	}
	f(http.MethodOptions, http.StatusOK)
	f(http.MethodHead, http.StatusOK)
	head := serve(http.MethodHead, "/jmx", servletBeans)
	if head.Body.Len() != 0 {
		t.Fatalf("HEAD /jmx wrote a body: %s", head.Body)
	}
	if head.Header().Get("Content-Length") != strconv.Itoa(get.Body.Len()) ||
		head.Header().Get("Content-Type") != ContentType {
		t.Fatalf("HEAD /jmx headers %v differ from GET's %v", head.Header(), get.Header())
	}
}

// Reference: JMXJsonServlet.writeAttribute skips attributes named
// modelerType or holding '=', ':' or ' ', and those whose getter throws.
func TestWriteSkipsWhatHadoopWouldNotWrite(t *testing.T) {
	beans := []Bean{{
		Name:        "Hadoop:service=Test,name=Skips",
		ModelerType: "T",
		Attrs: []Attr{
			{"Good", 1},
			{"modelerType", "shadow"},
			{"name", "shadow"},
			{"a:b", 1},
			{"a b", 1},
			{"a=b", 1},
			{"", 1},
			{"Good", 2},
			{"NaN", math.NaN()},
			{"Inf", math.Inf(1)},
			{"Chan", make(chan int)},
			{"BadRaw", json.RawMessage(`{`)},
			{"BadNumber", json.Number("12x")},
			{"Raw", json.RawMessage(`{"b":1,"a":[1,2]}`)},
			{"Big", json.Number("9007199254740993")},
			{"HTML", "<a href='x'>&</a>"},
			{"Map", map[string]any{"used": 2, "committed": 1}},
		},
	}}
	rec := serve(http.MethodGet, "/jmx", beans)
	want := `{
  "beans" : [ {
    "name" : "Hadoop:service=Test,name=Skips",
    "modelerType" : "T",
    "Good" : 1,
    "Raw" : {
      "b" : 1,
      "a" : [ 1, 2 ]
    },
    "Big" : 9007199254740993,
    "HTML" : "<a href='x'>&</a>",
    "Map" : {
      "committed" : 1,
      "used" : 2
    }
  } ]
}`
	if rec.Code != 200 || rec.Body.String() != want {
		t.Fatalf("GET /jmx = %d\n%s\nwant\n%s", rec.Code, rec.Body, want)
	}
	for _, attr := range []string{"NaN", "Chan", "a:b", "modelerType"} {
		rec := serve(http.MethodGet, "/jmx?get=Hadoop:service=Test,name=Skips::"+attr, beans)
		if rec.Code != http.StatusNotFound {
			t.Fatalf("get of %s = %d, want 404", attr, rec.Code)
		}
	}
	// MarshalJSON is strict where Write is lenient.
	if _, err := beans[0].MarshalJSON(); err == nil {
		t.Fatal("MarshalJSON accepted an attribute called modelerType")
	}
}

// Write's encoders and buffers are pooled: answers written at the same
// time, of different sizes and statuses, are each whole and their own.
func TestWriteConcurrently(t *testing.T) {
	targets := []string{"/jmx", "/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus::State",
		"/jmx?get=nope", "/jmx?qry=Hadoop:service=NameNode,*", "/jmx?qry=%zz"}
	want := make([]string, len(targets))
	for i, target := range targets {
		want[i] = serve(http.MethodGet, target, servletBeans).Body.String()
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 200 {
				i := (g + k) % len(targets)
				if got := serve(http.MethodGet, targets[i], servletBeans).Body.String(); got != want[i] {
					t.Errorf("GET %s at the same time as others:\n%s\nwant\n%s", targets[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}
