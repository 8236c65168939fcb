package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// logFlags are -log-level and -log-format, shared by the daemons.
type logFlags struct {
	level, format string
}

func (f *logFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.level, "log-level", "info", "least `LEVEL` logged: debug, info, warn or error")
	fs.StringVar(&f.format, "log-format", "text", "`FORMAT` of the log on stderr: text (key=value) or json (one object a line)")
}

// logger returns the logger the flags ask for, writing to w.
func (f *logFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.level)); err != nil || strings.ContainsAny(f.level, "+-") {
		return nil, fmt.Errorf("-log-level %q: want debug, info, warn or error", f.level)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch strings.ToLower(f.format) {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("-log-format %q: want text or json", f.format)
}
