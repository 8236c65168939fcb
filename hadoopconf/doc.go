// Package hadoopconf reads Hadoop's configuration files (core-site.xml,
// hdfs-site.xml) keeping where each value came from, and writes a
// configuration as Hadoop daemons serve it at /conf.
//
// Reading follows Configuration.loadResource: a <configuration> of
// <property> elements, each with <name>, <value> and an optional
// <final>true</final>; a later resource overrides an earlier one, except a
// property an earlier resource made final. A file that does not parse is
// an error naming it.
//
// Writing follows ConfServlet: XML as Configuration.writeXml writes it
// (<property><name/><value/><final/><source/></property>, one a line), or
// JSON as Configuration.dumpConfiguration writes it
// ({"properties":[{"key","value","isFinal","resource"}]}); ?name=KEY gives
// one property. The values of sensitive keys are redacted as Hadoop's
// ConfigRedactor redacts them, by the default patterns of
// hadoop.security.sensitive-config-keys.
package hadoopconf
