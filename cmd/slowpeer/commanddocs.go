package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
)

// commandDoc is what the man page and the completion script say of one
// subcommand: all of it comes from the subcommand's own FlagSet, so that
// neither can drift from the flags.
type commandDoc struct {
	name    string // "datanode", "hiveserver pick"
	summary string
	usage   string // the usage line of -h, without "usage: "
	flags   []flagDoc
	keys    []keyDefault // the configuration keys -h lists, in its order
}

// flagDoc is one flag as -h prints it.
type flagDoc struct {
	name, arg, usage, def string // def: "" when -h shows no default
}

// flagCollector is the stderr given to a subcommand run with -h to read
// its flags: newFlagSet hands it each FlagSet it makes; what is written to
// it is dropped.
type flagCollector struct{ sets []flagSetDoc }

type flagSetDoc struct {
	usage string
	fs    *flag.FlagSet
}

func (*flagCollector) Write(p []byte) (int, error) { return len(p), nil }

// commandDocs runs every subcommand with -h and reads its FlagSet.
func commandDocs() ([]commandDoc, error) {
	var docs []commandDoc
	for _, c := range commands {
		name, args := c.name, []string{"-h"}
		if c.name == "hiveserver" {
			name, args = "hiveserver pick", []string{"pick", "-h"}
		}
		var col flagCollector
		if err := c.run(context.Background(), args, strings.NewReader(""), io.Discard, &col); err != errHelp {
			return nil, fmt.Errorf("read the flags of %s: -h answered %v", name, err)
		}
		if len(col.sets) != 1 {
			return nil, fmt.Errorf("read the flags of %s: %d flag sets, want 1", name, len(col.sets))
		}
		set := col.sets[0]
		d := commandDoc{name: name, summary: c.summary, usage: set.usage}
		set.fs.VisitAll(func(f *flag.Flag) {
			arg, usage := flag.UnquoteUsage(f)
			fd := flagDoc{name: f.Name, arg: arg, usage: usage}
			if !zeroDefault(f) {
				fd.def = f.DefValue
			}
			d.flags = append(d.flags, fd)
		})
		d.keys = usageKeys(set.fs)
		docs = append(docs, d)
	}
	return docs, nil
}

// zeroDefault reports whether f's default is its type's zero value, which
// -h does not print (flag.isZeroValue).
func zeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return true
	}
	return false
}

// keysHeader is the line of confFlags' usage before the list of keys.
const keysHeader = "Configuration keys"

// usageKeys returns the configuration keys fs's usage lists after
// keysHeader ("  key = default" lines).
func usageKeys(fs *flag.FlagSet) []keyDefault {
	var buf bytes.Buffer
	out := fs.Output()
	fs.SetOutput(&buf)
	fs.Usage()
	fs.SetOutput(out)
	_, list, ok := strings.Cut(buf.String(), "\n"+keysHeader)
	if !ok {
		return nil
	}
	var keys []keyDefault
	for _, line := range strings.Split(list, "\n")[1:] {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " = "); ok {
			keys = append(keys, keyDefault{name: k, value: v})
		}
	}
	return keys
}
