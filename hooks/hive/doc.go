// Package hive ships slowpeer's Hive hook, io.slowpeer.hive.SlowpeerHook,
// a Java ExecuteWithHookContext that posts the HiveServer hook events of
// DESIGN.md to a slowpeer service (README.md in this directory says how to
// build and install it).
//
// The package holds no Go code beyond its tests: they compile the hook with
// javac against compile-only declarations of Hive's hook API
// (src/test/stubs), run it in a JVM through a small driver
// (src/test/driver) against a live "slowpeer namenode", and check what the
// service stored.
package hive
