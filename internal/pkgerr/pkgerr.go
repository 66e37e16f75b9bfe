// Package pkgerr formats the errors of a package whose messages start with
// the package's name ("reasoner: query p(X): ..."), so that a message names
// each package once however many times the package wraps its own errors on
// their way out: "reasoner: query p(X): too many facts", not
// "reasoner: query p(X): reasoner: too many facts". Such a package calls
// [Newf] where it would call fmt.Errorf.
//
// It is a leaf: it imports only the standard library, and every package of
// the module may import it (docs/ARCHITECTURE.md, "The dependency rule").
package pkgerr

import (
	"fmt"
	"strings"
)

// Errorf is fmt.Errorf for a message that starts with prefix (such as
// "reasoner: "): every error argument whose message starts with prefix is
// formatted without it. The error arguments are still wrapped as they are
// (with %w), so errors.Is and errors.As find them and their chains.
func Errorf(prefix, format string, args ...any) error {
	trimmedArgs := make([]any, len(args))
	for i, a := range args {
		trimmedArgs[i] = a
		if err, ok := a.(error); ok && err != nil {
			if msg := err.Error(); strings.HasPrefix(msg, prefix) {
				trimmedArgs[i] = trimmed{err: err, msg: msg[len(prefix):]}
			}
		}
	}
	return fmt.Errorf(format, trimmedArgs...)
}

// Newf is [Errorf] with the prefix read from format: the text before the
// format's first ": ", and the ": ", when that text holds no verb — "miner: "
// for "miner: read %s: %w". It is the errorf of every package whose
// messages start with the package's name. A format with no such prefix is
// formatted as by fmt.Errorf.
func Newf(format string, args ...any) error {
	name, _, ok := strings.Cut(format, ": ")
	if !ok || strings.Contains(name, "%") {
		return fmt.Errorf(format, args...)
	}
	return Errorf(name+": ", format, args...)
}

// trimmed is an error shown without its package prefix.
type trimmed struct {
	err error
	msg string
}

func (t trimmed) Error() string { return t.msg }
func (t trimmed) Unwrap() error { return t.err }
