package main

import (
	"context"
	"errors"
	"io"
)

// runNamenode is a placeholder until its issue lands.
func runNamenode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return errors.New("not built yet")
}
