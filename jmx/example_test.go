package jmx_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"

	"github.com/slowpeer/slowpeer/jmx"
)

var beans = []jmx.Bean{
	{
		Name:        jmx.NameNodeStatusBean,
		ModelerType: "org.apache.hadoop.hdfs.server.namenode.NameNode",
		Attrs: []jmx.Attr{
			{Name: "State", Value: "active"},
			{Name: "SlowPeersReport", Value: "[]"},
		},
	},
	{
		Name:        jmx.FSNamesystemStateBean,
		ModelerType: "org.apache.hadoop.hdfs.server.namenode.FSNamesystem",
		Attrs: []jmx.Attr{
			{Name: "NumLiveDataNodes", Value: 11},
			{Name: "NumDeadDataNodes", Value: 1},
		},
	},
}

// Write serves /jmx as a Hadoop NameNode does.
func ExampleWrite() {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState", nil)
	jmx.Write(rec, req, beans)
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))
	fmt.Println(rec.Body)
	// Output:
	// 200 application/json; charset=utf8
	// {
	//   "beans" : [ {
	//     "name" : "Hadoop:service=NameNode,name=FSNamesystemState",
	//     "modelerType" : "org.apache.hadoop.hdfs.server.namenode.FSNamesystem",
	//     "NumLiveDataNodes" : 11,
	//     "NumDeadDataNodes" : 1
	//   } ]
	// }
}

// Write answers ?get=BEAN::ATTRIBUTE, and 404 for a missing attribute.
func ExampleWrite_get() {
	for _, target := range []string{
		"/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus::State",
		"/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus::Nope",
		"/jmx?get=Hadoop:service=NameNode,name=NameNodeStatus",
	} {
		rec := httptest.NewRecorder()
		jmx.Write(rec, httptest.NewRequest(http.MethodGet, target, nil), beans)
		fmt.Println(rec.Code)
		fmt.Println(rec.Body)
	}
	// Output:
	// 200
	// {
	//   "beans" : [ {
	//     "name" : "Hadoop:service=NameNode,name=NameNodeStatus",
	//     "modelerType" : "org.apache.hadoop.hdfs.server.namenode.NameNode",
	//     "State" : "active"
	//   } ]
	// }
	// 404
	// {
	//   "beans" : [ {
	//     "name" : "Hadoop:service=NameNode,name=NameNodeStatus",
	//     "modelerType" : "org.apache.hadoop.hdfs.server.namenode.NameNode",
	//     "result" : "ERROR",
	//     "message" : "No attribute with name Nope was found."
	//   } ]
	// }
	// 400
	// {
	//   "result" : "ERROR",
	//   "message" : "query format is not as expected."
	// }
}

// Query selects beans with JMX ObjectName patterns.
func ExampleQuery() {
	for _, qry := range []string{
		"Hadoop:service=NameNode,*",
		"Hadoop:name=NameNodeStatus,service=NameNode",
		"*:name=FS*,*",
		"Hadoop:service=DataNode,*",
		"Hadoop",
	} {
		found, err := jmx.Query(beans, qry)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: %d\n", qry, len(found))
	}
	// Output:
	// Hadoop:service=NameNode,*: 2
	// Hadoop:name=NameNodeStatus,service=NameNode: 1
	// *:name=FS*,*: 1
	// Hadoop:service=DataNode,*: 0
	// jmx query "Hadoop": key properties cannot be empty
}

// Parse reads a scraped /jmx; numbers keep their exact text.
func ExampleParse() {
	doc := []byte(`{
  "beans" : [ {
    "name" : "Hadoop:service=NameNode,name=FSNamesystemState",
    "modelerType" : "org.apache.hadoop.hdfs.server.namenode.FSNamesystem",
    "CapacityTotal" : 9007199254740993,
    "NumLiveDataNodes" : 11
  } ]
}`)
	beans, err := jmx.Parse(doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	state, _ := jmx.Find(beans, jmx.FSNamesystemStateBean)
	for _, a := range state.Attrs {
		fmt.Printf("%s %T %v\n", a.Name, a.Value, a.Value)
	}
	// Hadoop writes a NaN gauge bare; it reads as a json.Number.
	beans, _ = jmx.Parse([]byte(`{"beans":[{"name":"a:b=c","Gauge":NaN}]}`))
	gauge, _ := beans[0].Attr("Gauge")
	f, err := gauge.(json.Number).Float64()
	fmt.Println(gauge, f, err)
	_, err = jmx.Parse([]byte(`{"beans":[{"name":"a:b=c","Gauge":}]}`))
	fmt.Println(err)
	// Output:
	// CapacityTotal json.Number 9007199254740993
	// NumLiveDataNodes json.Number 11
	// NaN NaN <nil>
	// parse jmx document: bean 0 (a:b=c): member "Gauge": invalid character '}' looking for beginning of value
}

// PeerLatencies reads what a Hadoop DataNode measured of its downstream
// peers.
func ExamplePeerLatencies() {
	doc := []byte(`{"beans":[{
  "name" : "Hadoop:service=DataNode,name=DataNodeInfo",
  "modelerType" : "org.apache.hadoop.hdfs.server.datanode.DataNode",
  "SendPacketDownstreamAvgInfo" : "{\"[10.0.0.5:9864]RollingAvgTime\":48.25,\"[10.0.0.6:9864]RollingAvgTime\":1.93}"
}]}`)
	beans, err := jmx.Parse(doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	latencies, err := jmx.PeerLatencies(beans)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, peer := range slices.Sorted(maps.Keys(latencies)) {
		fmt.Printf("%s %.2f ms\n", peer, latencies[peer])
	}
	// Output:
	// 10.0.0.5:9864 48.25 ms
	// 10.0.0.6:9864 1.93 ms
}

// MarshalJSON writes name and modelerType first, then the attributes in
// order.
func ExampleBean_MarshalJSON() {
	b, err := beans[0].MarshalJSON()
	fmt.Println(string(b), err)
	// Output:
	// {"name":"Hadoop:service=NameNode,name=NameNodeStatus","modelerType":"org.apache.hadoop.hdfs.server.namenode.NameNode","State":"active","SlowPeersReport":"[]"} <nil>
}

// MarshalJackson writes a NameNode's SlowPeersReport as Hadoop's Jackson
// does: doubles as Java's Double.toString, no HTML escaping.
func ExampleMarshalJackson() {
	type reporter struct {
		Node      string  `json:"ReportingNode"`
		LatencyMs float64 `json:"ReportedLatency"`
		MedianMs  float64 `json:"MedianLatency"`
	}
	type slowNode struct {
		Node      string     `json:"SlowNode"`
		Reporters []reporter `json:"SlowPeerLatencyWithReportingNodes"`
	}
	report, err := jmx.MarshalJackson([]slowNode{{Node: "10.0.0.5:9866",
		Reporters: []reporter{{Node: "10.0.0.2:9866", LatencyMs: 25, MedianMs: 1e-4}}}})
	fmt.Println(string(report), err)
	fmt.Println(jmx.FormatDouble(12345678.5), jmx.FormatDouble(0.001), jmx.FormatDouble(1e7))
	// Output:
	// [{"SlowNode":"10.0.0.5:9866","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"10.0.0.2:9866","ReportedLatency":25.0,"MedianLatency":1.0E-4}]}] <nil>
	// 1.23456785E7 0.001 1.0E7
}

// PeerAveragesJSON writes SendPacketDownstreamAvgInfo as a Hadoop DataNode
// does, for a DataNodeInfo bean of one's own.
func ExamplePeerAveragesJSON() {
	fmt.Println(jmx.PeerAveragesJSON(map[string]float64{"10.0.0.5:9864": 2.75, "10.0.0.3:9864": 48}))
	// Output:
	// {"[10.0.0.3:9864]RollingAvgTime":48.0,"[10.0.0.5:9864]RollingAvgTime":2.75}
}

// ParseSlowPeersReport reads a Hadoop NameNode's SlowPeersReport in any of
// its shapes; a figure Hadoop did not send is nil.
func ExampleParseSlowPeersReport() {
	for _, s := range []string{
		`[{"SlowNode":"10.0.0.5:9864","ReportingNodes":["10.0.0.2:9867"]}]`,
		`[{"SlowNode":"10.0.0.5:9864","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"10.0.0.2:9867","ReportedLatency":35.2,"MedianLatency":2.1}]}]`,
	} {
		nodes, err := jmx.ParseSlowPeersReport(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		r := nodes[0].Reporters[0]
		fmt.Println(nodes[0].Node, r.Node, r.LatencyMs != nil, r.MedianMs != nil, r.MADMs != nil)
	}
	// Output:
	// 10.0.0.5:9864 10.0.0.2:9867 false false false
	// 10.0.0.5:9864 10.0.0.2:9867 true true false
}
