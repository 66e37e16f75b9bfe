package exchange

import (
	"strings"

	"github.com/drumql/drumql/datalog"
)

// AttachComments gives every rule of prog read from file (its Pos.File)
// that has no Comment the `%` comment lines directly above it in src, the
// file's text, as the parser leaves comments out: drumql mine writes a
// rule's counts there ("% score=... support=N body=M conf=C"), which
// [WriteAnyBURL] writes as AnyBURL's counts.
func AttachComments(prog *datalog.Program, file string, src []byte) {
	lines := strings.Split(string(src), "\n")
	for i := range prog.Rules {
		r := &prog.Rules[i]
		if r.Comment != "" || r.Pos.File != file {
			continue
		}
		var above []string
		for k := r.Pos.Line - 2; k >= 0 && k < len(lines); k-- {
			l := strings.TrimSpace(lines[k])
			text, ok := strings.CutPrefix(l, "%")
			if !ok {
				break
			}
			above = append(above, strings.TrimSpace(text))
		}
		for a, b := 0, len(above)-1; a < b; a, b = a+1, b-1 {
			above[a], above[b] = above[b], above[a]
		}
		r.Comment = strings.Join(above, "\n")
	}
}
