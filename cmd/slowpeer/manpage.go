package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

//go:generate sh -c "go run . man > ../../docs/slowpeer.1"

// hiddenCommands are subcommands "slowpeer help" does not list: they make
// files for the package (scripts/deb) from the flags of the others.
var hiddenCommands = []command{
	{"man", "write the man page slowpeer(1), in roff, from the flags", runMan},
	{"completion", "write the bash completion script (completion bash)", runCompletion},
}

// runMan runs "slowpeer man": it writes slowpeer(1) to stdout.
func runMan(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("man", "", stderr)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	return writeFromDocs(stdout, manPage)
}

// writeFromDocs writes to w what page makes of the subcommands' docs.
func writeFromDocs(w io.Writer, page func([]commandDoc) string) error {
	docs, err := commandDocs()
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, page(docs))
	return err
}

// manPage writes slowpeer(1) in roff (man(7) macros) from docs. It holds
// no date, so that the same flags give the same page.
func manPage(docs []commandDoc) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	p(`.TH SLOWPEER 1 "" "slowpeer" "User Commands"`)
	p(".SH NAME")
	p(`slowpeer \- find the slow machines of a Hadoop\-style cluster from what they see of each other`)
	p(".SH SYNOPSIS")
	p(".B slowpeer")
	p(".I command")
	p(".RI [ flags ]")
	p(".SH DESCRIPTION")
	p("%s", roff("An agent beside every DataNode (slowpeer datanode) times how long each downstream peer takes "+
		"to acknowledge mirrored packets, runs Hadoop's median/MAD outlier test over the per-peer averages and "+
		"reports the outliers on its heartbeat. A NameNode-side service (slowpeer namenode) counts, per slow node, "+
		"who reports it, diagnoses which way it is slow, and serves that as JSON, Hadoop-compatible /jmx, "+
		"Prometheus /metrics and a dashboard; it sends new Hive connections to the least-loaded HiveServer "+
		"not on a slow host."))
	p(".SH COMMANDS")
	for _, d := range docs {
		p(".SS %s", roff("slowpeer "+d.name))
		p("%s", roff(d.summary+"."))
		p(".PP")
		p(".B %s", roff("slowpeer "+d.name))
		if rest := strings.TrimSpace(strings.TrimPrefix(d.usage, "slowpeer "+d.name)); rest != "" {
			p("%s", roff(strings.Join(strings.Fields(rest), " ")))
		}
		for _, f := range d.flags {
			p(".TP")
			if f.arg != "" {
				p(`.BI \-%s " %s"`, roff(f.name), roff(f.arg))
			} else {
				p(`.B \-%s`, roff(f.name))
			}
			usage := f.usage
			if f.def != "" {
				usage += " (default " + f.def + ")"
			}
			p("%s", roff(usage))
		}
		if len(d.keys) > 0 {
			p(".PP")
			p("%s", roff("Configuration keys (-D key=value, hdfs-site.xml, core-site.xml) and their defaults:"))
			for _, k := range d.keys {
				p(".TP")
				p(".B %s", roff(k.name))
				p("%s", roff(k.value))
			}
		}
	}
	p(".SH EXIT STATUS")
	p("0 on success, 1 when the command failed, 2 for a bad command line, flag, key or input.")
	p(".SH ENVIRONMENT")
	p(".TP")
	p(".B HADOOP_CONF_DIR")
	p("%s", roff("where core-site.xml and hdfs-site.xml are read from when -conf is not given."))
	p(".SH FILES")
	for _, f := range [][2]string{
		{"/etc/slowpeer/namenode.env", "the flags of the slowpeer-namenode systemd unit (SLOWPEER_NAMENODE_ARGS)"},
		{"/etc/slowpeer/datanode.env", "the flags of the slowpeer-datanode systemd unit (SLOWPEER_DATANODE_ARGS)"},
		{"/var/lib/slowpeer", "the service's state: its SQLite store of Hive hook events and its state file"},
	} {
		p(".TP")
		p(".I %s", roff(f[0]))
		p("%s", roff(f[1]))
	}
	p(".SH SEE ALSO")
	p(`.BR systemctl (1)`)
	return b.String()
}

// roff escapes s for one roff text line: backslashes, hyphens (so that
// flags print as minus signs and can be searched for), and a control
// character at the start of the line.
func roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`, "\n", " ").Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
