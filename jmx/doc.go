// Package jmx writes and reads the JMX JSON documents of Hadoop's /jmx
// servlet, org.apache.hadoop.jmx.JMXJsonServlet.
//
// A document is {"beans":[...]}; each [Bean] is a JSON object whose first
// two members are "name" (the MBean's ObjectName) and "modelerType" (its
// class), followed by its attributes in order.
//
// # Writing
//
// [Write] answers an HTTP request as JMXJsonServlet.doGet does in Hadoop
// trunk: ?qry= selects beans with a JMX ObjectName or pattern (default
// "*:*"), ?get=BEAN::ATTRIBUTE selects one attribute, the body is
// pretty-printed as Jackson's DefaultPrettyPrinter prints it, the
// Content-Type is Hadoop's "application/json; charset=utf8" and the CORS
// headers are Hadoop's. JSONP is gone from trunk, so callback= is ignored.
// A qry that matches nothing answers 200 with an empty beans array.
//
// The error status codes are the ones JMXJsonServlet sets and documents in
// its class comment: 400 for a malformed qry or get, 404 for a missing
// attribute. Hadoop sets each of them only after its JSON generator has
// flushed, and so committed, the response with 200, so a real Hadoop
// answers those errors 200 (its own TestJMXJsonServlet reads the body of a
// bad ?get= as a success). The bodies are Hadoop's, except for a malformed
// qry: Hadoop's body is an empty object, "{ }", where Write answers
// {"result":"ERROR","message":...}.
//
// [MarshalJackson] writes a value as Hadoop's Jackson ObjectMapper writes
// the same Java object, byte for byte: doubles as Java's Double.toString
// ([FormatDouble]: 25.0, 1.0E-4), no HTML escaping. A NameNode's
// SlowPeersReport string is written with it; [PeerAveragesJSON] writes a
// DataNode's SendPacketDownstreamAvgInfo; [JvmMetrics] is a daemon's
// JvmMetrics bean made of the Go runtime's figures ([ReadRuntime]).
//
// # Patterns
//
// [Query] follows javax.management.ObjectName: a domain with the wildcards
// '*' and '?', then a comma-separated key property list; "*" in the list
// (a property list pattern) lets a name carry more keys; '*' and '?' in a
// value (a property value pattern) match any run of characters and any one
// character. Key properties are an unordered set, so
// "Hadoop:name=NameNodeStatus,service=NameNode" names the same bean as
// "Hadoop:service=NameNode,name=NameNodeStatus". An empty qry is "*:*" and
// an empty domain is the MBeanServer's default domain, "DefaultDomain".
// The one deliberate difference from ObjectName.construct: a quoted value
// must be followed by ',' or the end of the name (Java silently skips one
// character there).
//
// # Reading
//
// [Parse] reads a document scraped from a Hadoop NameNode or DataNode.
// Numbers are kept as [encoding/json.Number], the exact text Hadoop wrote,
// so a 64-bit counter or a 17-digit double is not rounded through float64;
// objects become map[string]any and arrays []any. The bare NaN, Infinity
// and -Infinity Hadoop writes for non-finite gauges are read, as
// json.Number("NaN") and so on. A document larger than [MaxDocumentBytes],
// not valid UTF-8, not JSON, without a "beans" array, with a bean that is
// not an object, has no name or names an attribute twice is an
// error, never a partial result. [PeerLatencies] reads a DataNode's
// SendPacketDownstreamAvgInfo; [ParseSlowPeersReport] and
// [ParseSlowDisksReport] read a NameNode's SlowPeersReport, in every shape
// Hadoop has written it, and SlowDisksReport.
//
// All functions are safe for concurrent use; they keep no state. A [Bean]
// is a plain value; the package never modifies one it is given.
package jmx
