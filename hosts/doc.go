// Package hosts reads Hadoop's hosts files, such as the one
// dfs.hosts.exclude names, and answers whether a DataNode is in one.
//
// The format is HostsFileReader's: entries separated by white space (one
// a line, or several), each a host or host:port; a word starting with #
// makes the rest of its line a comment. An entry without a port applies
// to every DataNode of that host, one with a port to the DataNode whose
// transfer address it is, as HostFileManager.HostSet.match decides.
// Hadoop resolves names to addresses when it reads the file (and drops
// the entries it cannot resolve); a Set matches a DataNode id by the name
// as written and, when the file was read with a lookup, by every address
// the name resolved to, so that an entry dn1.example excludes both
// dn1.example:9866 and 10.0.0.1:9866 when dn1.example is 10.0.0.1.
// Unlike Hadoop, an entry that is neither a host nor host:port is an
// error naming the file and the line, not a warning: the caller keeps the
// set it had.
package hosts
