package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// errHelp is returned by parseFlags when -h was asked for; the usage has
// been printed and the process exits 0.
var errHelp = errors.New("help requested")

// newFlagSet returns a FlagSet that reports to stderr and does not exit.
// When stderr is a *flagCollector (the man page and the completion
// script), the FlagSet is handed to it as well.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("slowpeer "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: slowpeer %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	if c, ok := stderr.(*flagCollector); ok {
		c.sets = append(c.sets, flagSetDoc{usage: strings.TrimSpace("slowpeer " + name + " " + synopsis), fs: fs})
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

// parseFlagsOnly is parseFlags for a command that takes no arguments
// beside its flags.
func parseFlagsOnly(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

// maxTokenFileBytes bounds what -auth-token-file reads.
const maxTokenFileBytes = 64 << 10

// splitList splits a comma-separated flag value; an empty entry is an
// error naming the flag.
func splitList(name, s string) ([]string, error) {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if parts[i] == "" {
			return nil, fmt.Errorf("%s %q: entry %d is empty", name, s, i+1)
		}
	}
	return parts, nil
}

// readTokenFile reads a bearer token file: one token, surrounding white
// space ignored, nothing else.
func readTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("-auth-token-file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("-auth-token-file: read %s: %w", path, err)
	}
	if len(data) > maxTokenFileBytes {
		return "", fmt.Errorf("-auth-token-file: %s is larger than %d bytes", path, maxTokenFileBytes)
	}
	tok := strings.TrimSpace(string(data))
	if tok == "" {
		return "", fmt.Errorf("-auth-token-file: %s holds no token", path)
	}
	for _, c := range tok {
		if c <= ' ' || c == 0x7f || c > '~' {
			return "", fmt.Errorf("-auth-token-file: %s: the token must be one word of printable ASCII", path)
		}
	}
	return tok, nil
}
