package main

import (
	"context"
	"errors"
	"io"
)

// runDatanode is a placeholder until its issue lands.
func runDatanode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return errors.New("not built yet")
}
