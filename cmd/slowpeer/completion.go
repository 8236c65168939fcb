package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// runCompletion runs "slowpeer completion bash": it writes a bash
// completion script for slowpeer to stdout, made from the flags of every
// subcommand: subcommand names first, then that subcommand's flags, the
// configuration keys after -D, and file names elsewhere.
func runCompletion(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("completion", "bash", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) != "bash" {
		return usageError{errors.New("want one argument, the shell: bash")}
	}
	return writeFromDocs(stdout, bashCompletion)
}

// bashCompletion is the bash completion script for docs.
func bashCompletion(docs []commandDoc) string {
	var b strings.Builder
	names := []string{"help"}
	for _, c := range commands {
		names = append(names, c.name)
	}
	fmt.Fprintf(&b, `# bash completion for slowpeer; made by "slowpeer completion bash" from its flags.
_slowpeer() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]}
	local flags= keys=
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W %q -- "$cur"))
		return
	fi
	case $cmd in
`, strings.Join(names, " "))
	for _, d := range docs {
		cmd, sub, _ := strings.Cut(d.name, " ")
		var flags, keys []string
		for _, f := range d.flags {
			flags = append(flags, "-"+f.name)
		}
		for _, k := range d.keys {
			keys = append(keys, k.name+"=")
		}
		fmt.Fprintf(&b, "\t%s)\n", cmd)
		if sub != "" {
			fmt.Fprintf(&b, "\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n\t\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n", sub)
		}
		fmt.Fprintf(&b, "\t\tflags=%q\n\t\tkeys=%q\n\t\t;;\n", strings.Join(flags, " "), strings.Join(keys, " "))
	}
	b.WriteString(`	*)
		return
		;;
	esac
	if [ "$prev" = "-D" ]; then
		compopt -o nospace 2>/dev/null
		COMPREPLY=($(compgen -W "$keys" -- "$cur"))
	elif [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _slowpeer slowpeer
`)
	return b.String()
}
