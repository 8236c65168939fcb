package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
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

// parseFlags parses args and turns flag's errors into a usageError (exit 2:
// the caller prints the one line and a pointer to -h, not the usage) and
// -h into errHelp, after the usage is printed (exit 0). A duration flag
// given a value without a unit says which units it takes.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.VisitAll(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok {
			if _, ok := g.Get().(time.Duration); ok {
				f.Value = durationFlag{f.Value}
			}
		}
	})
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return errHelp
	}
	if err != nil {
		return usageError{err}
	}
	return nil
}

// durationFlag is a Go duration flag whose errors say what is expected;
// flag's own says "parse error".
type durationFlag struct{ flag.Value }

func (d durationFlag) Set(s string) error {
	if _, err := time.ParseDuration(s); err != nil {
		if strings.Contains(err.Error(), "missing unit") {
			return fmt.Errorf("%q has no unit: write it with one, such as 50ms, 30s or 5m", s)
		}
		return fmt.Errorf("%q is not a duration such as 50ms, 30s or 5m", s)
	}
	return d.Value.Set(s)
}

// Get returns the duration, so that the flag stays a flag.Getter.
func (d durationFlag) Get() any { return d.Value.(flag.Getter).Get() }

// String is the wrapped flag's value; flag's -h asks it of a zero
// durationFlag too, to tell a default apart.
func (d durationFlag) String() string {
	if d.Value == nil {
		return "0s"
	}
	return d.Value.String()
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
