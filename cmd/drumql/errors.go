package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/drumql/drumql/internal/ansi"
	"github.com/drumql/drumql/store"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitCorrupt = 3
)

// usageError marks an error caused by the user's input (bad flags, malformed
// files, bad programs): it exits with code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }
func (usageError) Input() bool     { return true }

func inputErr(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// reportError prints err and maps it to an exit code.
func reportError(stderr io.Writer, err error) int {
	msg := err.Error()
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	if !strings.HasPrefix(msg, "drumql") {
		msg = "drumql: " + msg
	}
	if errors.Is(err, store.ErrCorrupt) && !strings.Contains(msg, "\nhint:") {
		msg += "hint: 'drumql verify' checks the whole store; load the data again into a new --db, or restore a copy\n"
	}
	if isTerminal(stderr) && os.Getenv("NO_COLOR") == "" {
		msg = ansi.Colorize(msg)
	}
	fmt.Fprint(stderr, msg)
	if errors.Is(err, store.ErrCorrupt) {
		return exitCorrupt
	}
	var ue interface{ Input() bool } // usageError, or a server's answer that the input was at fault
	if errors.As(err, &ue) && ue.Input() {
		return exitUsage
	}
	return exitFailure
}
