package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

func runDetect(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return fmt.Errorf("not built yet")
}

var _ = json.Marshal
var _ = os.Open
