package rulefile

import (
	"io"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// DiagnosticsError is diagnostics as an error whose message shows each
// one as file:line:col with its source line and a caret under the column
// (datalog.Diagnostics.Render, the source read with Source), as drumql
// prints them.
type DiagnosticsError struct{ Diagnostics datalog.Diagnostics }

func (e DiagnosticsError) Error() string {
	var b strings.Builder
	_ = e.Diagnostics.Render(&b, Source)
	return strings.TrimRight(b.String(), "\n")
}

// WriteWarnings writes the diagnostics of ds that are not errors on w, each
// with its source line (datalog.Diagnostics.Render); nothing when there is
// none.
func WriteWarnings(w io.Writer, ds datalog.Diagnostics) error {
	var warn datalog.Diagnostics
	for _, d := range ds {
		if d.Severity != datalog.Error {
			warn = append(warn, d)
		}
	}
	if len(warn) == 0 {
		return nil
	}
	return warn.Render(w, Source)
}
