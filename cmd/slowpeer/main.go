// Command slowpeer finds the slow machines of a Hadoop-style cluster from
// what the machines see of each other, and keeps new work away from them.
//
// Run "slowpeer help" for its subcommands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand: its name, a one-line summary and its Run.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands = []command{
	{"detect", "run the median/MAD outlier test on a JSON object of peer latencies", runDetect},
	{"namenode", "run the NameNode-side service (heartbeats, /slowpeers, /jmx, /metrics, HiveServer picker)", runNamenode},
	{"datanode", "run the DataNode-side agent (probes, peer metrics, heartbeats)", runDatanode},
	{"report", "print the slow-node report of a NameNode-side service", runReport},
	{"admin", "list the DataNodes (-report), re-read dfs.hosts.exclude (-refresh-nodes), forget a DataNode (-forget)", runAdmin},
	{"hiveserver", "ask a NameNode-side service which HiveServer to use", runHiveserver},
	{"demo", "run a service and a dozen agents on loopback, one of them slow", runDemo},
	{"simulate", "run a simulated cluster through a fault: slowpeer's detection beside Hadoop's", runSimulate},
	{"version", "print slowpeer's version and VCS revision (also -version)", runVersion},
}

// usageError marks an error in the command line or in the input: the
// process exits 2, as flag's own errors do.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// inputError marks an error in the input a command reads (not its command
// line): the process exits 2 with the one line, and no pointer to -h.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches args to a subcommand and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		if len(args) == 0 {
			printHelp(stderr)
			return 2
		}
		printHelp(stdout)
		return 0
	}
	if args[0] == "-version" || args[0] == "--version" {
		args = append([]string{"version"}, args[1:]...)
	}
	for _, c := range append(commands, hiddenCommands...) {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdin, stdout, stderr)
		var ue usageError
		var ie inputError
		switch {
		case err == nil:
			return 0
		case errors.Is(err, errHelp):
			return 0
		case errors.As(err, &ie):
			fmt.Fprintf(stderr, "slowpeer %s: %v\n", c.name, err)
			return 2
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "slowpeer %s: %v\nRun \"slowpeer %s -h\" for its flags.\n", c.name, err, c.name)
			return 2
		default:
			fmt.Fprintf(stderr, "slowpeer %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "slowpeer: unknown command %q; run \"slowpeer help\"\n", args[0])
	return 2
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: slowpeer <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "slowpeer <command> -h" for a command's flags.`)
}
