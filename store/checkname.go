package store

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxArity is the largest arity a fact may have (the arity is one key
// byte): an atom with more arguments can never be stored.
const MaxArity = 255

// ErrBadName is returned for a symbol name that is not valid UTF-8 or
// holds a NUL byte.
var ErrBadName = errors.New("store: bad name")

// CheckName returns an error for a name a load refuses: empty, longer than
// MaxNameLen bytes (ErrNameTooLong), not valid UTF-8 or holding a NUL byte
// (ErrBadName). The message quotes at most 40 bytes of the name.
func CheckName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: an empty name", ErrBadName)
	case len(name) > MaxNameLen:
		return fmt.Errorf("%w (a name of %d bytes starting %q)", ErrNameTooLong, len(name), excerpt(name))
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: invalid UTF-8 in %q", ErrBadName, excerpt(name))
	case strings.IndexByte(name, 0) >= 0:
		return fmt.Errorf("%w: a NUL byte in %q", ErrBadName, excerpt(name))
	}
	return nil
}

// excerpt is the first 40 bytes of a name, for a message.
func excerpt(name string) string {
	if len(name) > 40 {
		return name[:40]
	}
	return name
}
