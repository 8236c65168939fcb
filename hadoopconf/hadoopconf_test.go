package hadoopconf

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Reference: Configuration.loadResource (later resources override, final
// ones stay) and ConfServlet.
func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("core-site.xml", `<?xml version="1.0"?>
<configuration>
  <property><name>a.final</name><value>core</value><final>true</final></property>
  <property><name> b </name><value> 7 </value><description>x</description></property>
  <property><name>no.value</name></property>
</configuration>`)
	write("hdfs-site.xml", `<configuration>
  <property><name>a.final</name><value>hdfs</value></property>
  <property><name>b</name><value>8</value></property>
  <property><name>c</name><value>x &amp; y</value></property>
</configuration>`)
	var c Conf
	if err := c.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	want := []Property{
		{Key: "a.final", Value: "core", Final: true, Source: "core-site.xml"},
		{Key: "b", Value: "8", Source: "hdfs-site.xml"},
		{Key: "c", Value: "x & y", Source: "hdfs-site.xml"},
	}
	if got := c.Properties(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Properties = %+v\nwant %+v", got, want)
	}
	if c.Set(Property{Key: "a.final", Value: "cli", Source: SourceCommandLine}) {
		t.Fatal("a final property was overridden")
	}

	bad := func(content, want string) {
		t.Helper()
		write("hdfs-site.xml", content)
		var c Conf
		err := c.ReadDir(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "hdfs-site.xml")+": ") || !strings.Contains(err.Error(), want) {
			t.Fatalf("ReadDir with hdfs-site.xml %q: %v, want an error naming the file and %q", content, err, want)
		}
	}
	bad("<configuration><property><name>a</name><value>1</value></property>", "not XML: line 1")
	bad("<properties/>", "not a Hadoop configuration")
	bad("<configuration><property><value>1</value></property></configuration>", "property 1 has no <name>")
	bad("<configuration><property><name>a</name><value>1</value><final>yes</final></property></configuration>", `<final> "yes"`)
}

func TestWriteXMLAndJSON(t *testing.T) {
	props := []Property{
		{Key: "dfs.heartbeat.interval", Value: "3s", Source: SourceDefault},
		{Key: "x", Value: "a<b & \"c\"\r", Final: true, Source: "hdfs-site.xml"},
		{Key: "ssl.server.keystore.password", Value: "hunter2", Source: SourceCommandLine},
	}
	var b bytes.Buffer
	if err := WriteXML(&b, props); err != nil {
		t.Fatal(err)
	}
	const wantXML = `<?xml version="1.0" encoding="UTF-8" standalone="no"?><configuration>
<property><name>dfs.heartbeat.interval</name><value>3s</value><final>false</final><source>default</source></property>
<property><name>x</name><value>a&lt;b &amp; "c"&#13;</value><final>true</final><source>hdfs-site.xml</source></property>
<property><name>ssl.server.keystore.password</name><value>&lt;redacted&gt;</value><final>false</final><source>from command line</source></property>
</configuration>
`
	if b.String() != wantXML {
		t.Fatalf("XML:\n%s\nwant\n%s", b.String(), wantXML)
	}
	// What Hadoop's own reader makes of it: the same properties.
	back, err := ParseSite(&b, "again")
	if err != nil || len(back) != 3 || back[1].Value != "a<b & \"c\"\r" || !back[1].Final {
		t.Fatalf("read back: %+v, %v", back, err)
	}
	b.Reset()
	if err := WriteJSON(&b, props); err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"properties":[{"key":"dfs.heartbeat.interval","value":"3s","isFinal":false,"resource":"default"},` +
		`{"key":"x","value":"a<b & \"c\"\r","isFinal":true,"resource":"hdfs-site.xml"},` +
		`{"key":"ssl.server.keystore.password","value":"<redacted>","isFinal":false,"resource":"from command line"}]}` + "\n"
	if b.String() != wantJSON {
		t.Fatalf("JSON:\n%s\nwant\n%s", b.String(), wantJSON)
	}
}

func TestRedact(t *testing.T) {
	for key, want := range map[string]bool{
		"fs.s3a.secret.key": true, "fs.s3a.bucket.b.secret.key": true, "dfs.web.authentication.kerberos.password": true,
		"hadoop.http.authentication.signature.secret": true, "fs.azure.account.key.acct": true,
		"dfs.webhdfs.oauth2.access.token": true, "x.credential": true, "ssl.server.keystore.password": true,
		"dfs.heartbeat.interval": false, "slowpeer.probe.interval": false,
	} {
		if got := redact(Property{Key: key, Value: "v"}).Value == Redacted; got != want {
			t.Errorf("%s redacted %v, want %v", key, got, want)
		}
	}
}

func TestHandler(t *testing.T) {
	h := Handler(func() []Property {
		return []Property{{Key: "a", Value: "1", Source: SourceDefault}, {Key: "b", Value: "2", Source: "hdfs-site.xml"}}
	})
	get := func(target string, header ...string) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest("GET", target, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	f := func(w *httptest.ResponseRecorder, status int, ctype, body string) {
		t.Helper()
		if w.Code != status || w.Header().Get("Content-Type") != ctype || !strings.Contains(w.Body.String(), body) {
			t.Fatalf("%d %s %q, want %d %s with %q", w.Code, w.Header().Get("Content-Type"), w.Body, status, ctype, body)
		}
	}
	const xmlType, jsonType = "text/xml; charset=utf-8", "application/json; charset=utf-8"
	f(get("/conf"), 200, xmlType, "<property><name>b</name><value>2</value><final>false</final><source>hdfs-site.xml</source></property>")
	f(get("/conf?format=json"), 200, jsonType, `{"properties":[{"key":"a"`)
	f(get("/conf", "Accept", "application/json"), 200, jsonType, `{"properties":[`)
	f(get("/conf?format=xml", "Accept", "application/json"), 200, xmlType, `<configuration>`)
	f(get("/conf?name=b&format=json"), 200, jsonType, `{"property":{"key":"b","value":"2","isFinal":false,"resource":"hdfs-site.xml"}}`)
	f(get("/conf?name=b"), 200, xmlType, "<configuration>\n<property><name>b</name>")
	f(get("/conf?name=zz"), 404, jsonType, `{"error":"Property zz not found"}`)
	f(get("/conf?format=yaml"), 400, jsonType, `{"error":"Bad format: yaml"}`)
	var doc struct{ Properties []map[string]any }
	if err := json.Unmarshal(get("/conf?format=json").Body.Bytes(), &doc); err != nil || len(doc.Properties) != 2 {
		t.Fatalf("JSON does not parse: %v", err)
	}
	req := httptest.NewRequest("POST", "/conf", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", w.Code)
	}
}

func FuzzParseSite(f *testing.F) {
	for _, s := range []string{
		`<configuration><property><name>a</name><value>1</value></property></configuration>`,
		`<configuration><property><name>a</name><value>1</value><final>true</final></property><property><name>b</name></property></configuration>`,
		`<configuration>`, `<x/>`, "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		props, err := ParseSite(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		// What WriteXML writes of them reads back the same (values as
		// XML can hold them).
		var b bytes.Buffer
		if err := WriteXML(&b, props); err != nil {
			t.Fatal(err)
		}
		back, err := ParseSite(&b, "f")
		if err != nil || len(back) != len(props) {
			t.Fatalf("written %q reads back as %v, %v", b.String(), back, err)
		}
	})
}
