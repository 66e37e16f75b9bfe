package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

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
		msg = colorize(msg)
	}
	fmt.Fprint(stderr, msg)
	if errors.Is(err, store.ErrCorrupt) {
		return exitCorrupt
	}
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}

// ANSI colours for messages on a terminal.
const (
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[36m"
	ansiGreen  = "\x1b[1;32m"
	ansiReset  = "\x1b[0m"
)

// colorize colours an error message for a terminal: "error:" red,
// "warning:" yellow, hint lines cyan, caret lines green. NO_COLOR turns it
// off, and it is never used when stderr is not a terminal.
func colorize(msg string) string {
	lines := strings.SplitAfter(msg, "\n")
	for i, l := range lines {
		body := strings.TrimRight(l, "\n")
		nl := l[len(body):]
		switch {
		case strings.HasPrefix(body, "hint:"):
			body = ansiCyan + body + ansiReset
		case strings.TrimSpace(body) == "^":
			body = strings.Replace(body, "^", ansiGreen+"^"+ansiReset, 1)
		default:
			body = strings.Replace(body, " error: ", " "+ansiRed+"error:"+ansiReset+" ", 1)
			body = strings.Replace(body, " warning: ", " "+ansiYellow+"warning:"+ansiReset+" ", 1)
		}
		lines[i] = body + nl
	}
	return strings.Join(lines, "")
}
