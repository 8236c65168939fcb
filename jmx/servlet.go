package jmx

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// ContentType is the Content-Type of every document Write sends, spelled
// as JMXJsonServlet.doGet spells it ("utf8", not "utf-8").
const ContentType = "application/json; charset=utf8"

// allowedMethods lists what Write serves. JMXJsonServlet implements doGet
// (HttpServlet adds HEAD and OPTIONS) and overrides doTrace to refuse it.
const allowedMethods = "GET, HEAD, OPTIONS"

// Write answers an HTTP request as Hadoop's JMXJsonServlet.doGet does, with
// beans as the MBeanServer's content, in their order:
//
//   - ?get=BEAN::ATTR (checked first) writes the attribute ATTR of every
//     bean BEAN matches. The value splits on "::" as Java's String.split
//     does; other than two parts is 400 with
//     {"result":"ERROR","message":"query format is not as expected."}.
//     A matching bean without ATTR, or with a null or unencodable value,
//     ends the array with an error bean
//     {"name":...,"modelerType":...,"result":"ERROR","message":"No attribute with name ATTR was found."}
//     and answers 404 (JMXJsonServlet.listBeans).
//   - else ?qry= (absent: "*:*"; empty: also "*:*", as new ObjectName("")
//     is) selects beans with Query and writes all their attributes. An
//     attribute Hadoop would never write (named modelerType, or holding
//     '=', ':' or a space; JMXJsonServlet.writeAttribute), named "name",
//     named twice, or whose value cannot be encoded is skipped, as Hadoop
//     skips an attribute whose getter throws.
//   - A qry or get that matches no bean answers 200 {"beans" : [ ]}.
//   - A malformed qry, BEAN part of get or query string answers 400 with
//     {"result":"ERROR","message":...}.
//   - callback= is ignored: Hadoop trunk removed JSONP.
//
// Every document is pretty-printed as Jackson's DefaultPrettyPrinter does,
// with Content-Type ContentType, Hadoop's CORS headers
// (Access-Control-Allow-Methods: GET, Access-Control-Allow-Origin: *) and
// HttpServer2's NoCacheFilter headers. HEAD answers as GET without a body,
// OPTIONS answers 200 with Allow, TRACE and every other method answer 405.
// The whole answer is built before anything is written.
func Write(w http.ResponseWriter, r *http.Request, beans []Bean) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		w.Header().Set("Allow", allowedMethods)
		w.WriteHeader(http.StatusOK)
		return
	default:
		// HttpServlet.doPost & co. and JMXJsonServlet.doTrace: 405.
		w.Header().Set("Allow", allowedMethods)
		http.Error(w, fmt.Sprintf("HTTP method %s is not supported by this URL", r.Method),
			http.StatusMethodNotAllowed)
		return
	}
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	status, doc := answer(e, r.URL.RawQuery, beans)
	body := jacksonIndent(e.body[:0], doc)
	e.body = body
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Access-Control-Allow-Methods", "GET")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Cache-Control", "no-cache")
	h.Set("Pragma", "no-cache")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body) // an error means the client went away; nothing to do
	}
}

// answer returns the status and the compact document for a raw query
// string, written into e's buffer.
func answer(e *encoder, rawQuery string, beans []Bean) (int, []byte) {
	e.buf.Reset()
	params, err := url.ParseQuery(rawQuery)
	if err != nil {
		return http.StatusBadRequest, errorDoc(e, "malformed query string: "+err.Error())
	}
	if get, ok := params["get"]; ok {
		return answerGet(e, get[0], beans)
	}
	qry := "*:*"
	if q, ok := params["qry"]; ok {
		qry = q[0]
	}
	pat, err := parseObjectName(qry)
	if err != nil {
		return http.StatusBadRequest, errorDoc(e, fmt.Sprintf("malformed qry %q: %v", qry, err))
	}
	e.buf.WriteString(`{"beans":[`)
	for i, b := range query(beans, &pat) {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		_ = e.bean(b, true) // lenient: never fails
	}
	e.buf.WriteString(`]}`)
	return http.StatusOK, e.buf.Bytes()
}

// answerGet answers ?get=BEAN::ATTR as JMXJsonServlet.doGet and listBeans.
func answerGet(e *encoder, get string, beans []Bean) (int, []byte) {
	parts := javaSplit(get, "::")
	if len(parts) != 2 {
		return http.StatusBadRequest, errorDoc(e, "query format is not as expected.")
	}
	pat, err := parseObjectName(parts[0])
	if err != nil {
		return http.StatusBadRequest, errorDoc(e, fmt.Sprintf("malformed bean name %q: %v", parts[0], err))
	}
	attr := parts[1]
	e.buf.WriteString(`{"beans":[`)
	for i, b := range query(beans, &pat) {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.buf.WriteString(`{"name":`)
		e.str(b.Name)
		e.buf.WriteString(`,"modelerType":`)
		e.str(b.ModelerType)
		clear(e.seen)
		v, ok := b.Attr(attr)
		if ok && v != nil && writable(attr) {
			ok = e.attr(Attr{Name: attr, Value: v}, true) == nil
		} else {
			ok = false
		}
		if !ok {
			e.buf.WriteString(`,"result":"ERROR","message":`)
			e.str("No attribute with name " + attr + " was found.")
			e.buf.WriteString(`}]}`)
			return http.StatusNotFound, e.buf.Bytes()
		}
		e.buf.WriteByte('}')
	}
	e.buf.WriteString(`]}`)
	return http.StatusOK, e.buf.Bytes()
}

// errorDoc returns Hadoop's error document, {"result":"ERROR","message":m}.
func errorDoc(e *encoder, message string) []byte {
	e.buf.Reset()
	e.buf.WriteString(`{"result":"ERROR","message":`)
	e.str(message)
	e.buf.WriteByte('}')
	return e.buf.Bytes()
}

// javaSplit splits s around sep as Java's String.split(regex) does for a
// literal regex: trailing empty strings are removed, so "a::" is ["a"] and
// "::" is [].
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	if len(parts) == 1 {
		return parts // no match: the input itself, even when empty
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
