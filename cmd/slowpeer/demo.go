package main

import (
	"context"
	"errors"
	"io"
)

// runDemo is a placeholder until its issue lands.
func runDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return errors.New("not built yet")
}
