package rulefile

import (
	"fmt"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/suggest"
)

// UnknownBody warns about the body predicates of p's rules that are
// neither relations of the store (rels, its relation names) nor defined by
// a rule or fact of p: most often a typo, and the literal never holds. It
// returns one warning per predicate, at its first literal, with the nearest
// known names as a suggestion, sorted by position.
func UnknownBody(rels []string, p *datalog.Program) datalog.Diagnostics {
	known := map[string]bool{}
	names := append([]string(nil), rels...)
	for _, r := range rels {
		known[r] = true
	}
	for _, f := range p.Facts {
		known[f.Atom.Pred] = true
	}
	for _, r := range p.Rules {
		if !known[r.Head.Pred] {
			names = append(names, r.Head.Pred)
		}
		known[r.Head.Pred] = true
	}
	var ds datalog.Diagnostics
	seen := map[string]bool{}
	for _, r := range p.Rules {
		var lits []*datalog.Literal
		r.BodyAtoms(func(l *datalog.Literal, _ bool) { lits = append(lits, l) })
		for _, l := range lits {
			if known[l.Atom.Pred] || seen[l.Atom.Pred] {
				continue
			}
			seen[l.Atom.Pred] = true
			msg := fmt.Sprintf("%s is not a relation of the store and no rule or fact defines it: the literal never holds", datalog.QuoteName(l.Atom.Pred))
			if s := suggest.Nearest(l.Atom.Pred, names, 3); len(s) > 0 {
				for i := range s {
					s[i] = datalog.QuoteName(s[i])
				}
				msg += "; did you mean " + strings.Join(s, ", ") + "?"
			}
			ds = append(ds, datalog.Diagnostic{Pos: l.Atom.Pos, Severity: datalog.Warning, Msg: msg})
		}
	}
	ds.Sort()
	return ds
}
