package policy

import (
	"errors"
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// Defined reports whether pred is a relation of st (base or derived facts)
// or defined by a rule or a fact of prog (nil: none).
func Defined(st store.Store, prog *datalog.Program, pred string) bool {
	if rels, err := st.Relations(); err == nil {
		for _, r := range rels {
			if r.Name == pred {
				return true
			}
		}
	}
	if prog == nil {
		return false
	}
	for _, r := range prog.Rules {
		if r.Head.Pred == pred {
			return true
		}
	}
	for _, f := range prog.Facts {
		if f.Atom.Pred == pred {
			return true
		}
	}
	return false
}

// Capitalised is a variable of a query whose name is an entity of the
// store: most often a constant written with a capital letter, which makes
// it a variable.
type Capitalised struct {
	Var    string       // the variable as written
	Entity datalog.Term // the entity, as a symbol (quoted when it must be)
}

// CapitalisedVars returns, for every distinct named variable of a (not
// "_" nor one that starts with "_"), in order, the entity of st its name
// is, as written or in lower case; a name that is also a relation of st is
// not taken for an entity.
func CapitalisedVars(st store.Store, a datalog.Atom) []Capitalised {
	rels := map[string]bool{}
	if rs, err := st.Relations(); err == nil {
		for _, r := range rs {
			rels[r.Name] = true
		}
	}
	var seen []string
	var out []Capitalised
	for _, t := range a.Args {
		if t.Kind != datalog.Var || strings.HasPrefix(t.Value, "_") || slices.Contains(seen, t.Value) {
			continue
		}
		seen = append(seen, t.Value)
		for _, name := range []string{t.Value, strings.ToLower(t.Value)} {
			if rels[name] {
				continue
			}
			if _, ok, err := st.Lookup(name); err == nil && ok {
				out = append(out, Capitalised{Var: t.Value, Entity: datalog.Term{Kind: datalog.Symbol, Value: name}})
				break
			}
		}
	}
	return out
}

// CheckQuery returns whether a query of a over st and prog names a
// predicate neither knows, and what the reasoner finds wrong with it
// (reasoner.CheckQuery); for an unknown predicate the error reads as the
// diagnostics' messages, with a hint when the store has no fact of it (a
// rules file may define it).
func CheckQuery(st store.Store, prog *datalog.Program, a datalog.Atom) (unknown bool, err error) {
	err = reasoner.CheckQuery(st, prog, a)
	if err == nil || errors.Is(err, reasoner.ErrUndefinedPredicate) {
		return false, err
	}
	var ds datalog.Diagnostics
	if !errors.Is(err, reasoner.ErrUnknownPredicate) || !errors.As(err, &ds) {
		return false, err
	}
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Msg)
	}
	if !Defined(st, prog, a.Pred) {
		b.WriteString("\nhint: the store has no base or derived fact of it; if a rules file defines it, pass the file with --rules")
	}
	return true, errors.New(b.String())
}
