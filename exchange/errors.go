package exchange

import (
	"fmt"
	"strings"

	"github.com/drumql/drumql/internal/lineerr"
)

// LineError is a problem with one line of a rule file; Col is the 1-based
// byte column, 0 when the whole line is meant.
type LineError = lineerr.Error

// MaxErrors is how many line errors an [Errors] lists; the rest are
// counted.
const MaxErrors = 20

// Errors are the problems of a rule file, in line order: the first
// [MaxErrors] of them, and how many more there were.
type Errors struct {
	List []*LineError
	More int
}

// Error lists the errors one per line, then "... and N more".
func (es *Errors) Error() string {
	var b strings.Builder
	for i, e := range es.List {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	if es.More > 0 {
		fmt.Fprintf(&b, "\n... and %d more", es.More)
	}
	return b.String()
}

// add records an error, keeping the first MaxErrors.
func (es *Errors) add(e *LineError) {
	if len(es.List) < MaxErrors {
		es.List = append(es.List, e)
	} else {
		es.More++
	}
}

// err returns es as an error, or nil when it holds none.
func (es *Errors) err() error {
	if len(es.List) == 0 {
		return nil
	}
	return es
}
