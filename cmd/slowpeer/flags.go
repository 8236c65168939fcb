package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// errHelp is returned by parseFlags when -h was asked for; the usage has
// been printed and the process exits 0.
var errHelp = errors.New("help requested")

// newFlagSet returns a FlagSet that reports to stderr and does not exit.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("slowpeer "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: slowpeer %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and turns flag's errors into a usageError (exit 2)
// and -h into errHelp (exit 0).
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		// flag has printed the error and the usage already.
		return usageError{err}
	}
	return nil
}
