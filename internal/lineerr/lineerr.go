package lineerr

import "fmt"

// Error is a problem with one line of an input file.
//
// Its Error method has a value receiver, so that both Error and *Error
// are errors: a reader may keep its errors by value or by pointer, and
// errors.As finds them with a target of the same kind.
type Error struct {
	File string
	Line int // 1-based
	// Col is the 1-based byte column the error is about, 0 when it is
	// about the whole line.
	Col    int
	Reason string
}

// Error returns "file:line:col: reason", or "file:line: reason" when Col is
// 0.
func (e Error) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Reason)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
}
