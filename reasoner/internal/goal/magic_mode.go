package goal

import (
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
)

// How a query is evaluated: the cost check of queryUnit, the race's
// goal-directed unit, and the dry rewrite that finds the goals.

// QueryUnit builds the evaluation unit of query q over p: the rules q
// depends on and the answer rule `ans(vars) :- q`. When goal is set and q
// has a constant or is nullary (goalDirected), the rules are rewritten with
// magic sets so that only the facts relevant to the constants, those of
// the query and those of the rules' bodies, are derived. A number constant
// is bound like a symbol: its magic facts are every symbol equal to it as a
// number (magicAtom), and it stays a filter in the rules. Predicates reached through
// negation (and everything they depend on) are evaluated in full with their
// original rules; the rest is adorned.
//
// A goal whose arguments are all free (p_ff) computes all of p: its magic
// predicate is nullary. The rewrite is first run to find the goals it
// demands (allFreeGoals); then
//
//   - when every adorned predicate has an all-free goal, the magic
//     program would compute every relation the query depends on in full,
//     plus the restricted copies and their magic sets (on mined programs,
//     whose rules with constants such as `h(X, c) :- b(X, _)` demand b_ff,
//     the magic sets of the bb goals grow to nearly every pair of
//     entities, far more than the model): the query is evaluated bottom-up
//     over the strata it depends on instead, then filtered by the answer
//     rule (modeBottomUp);
//   - otherwise, each literal over a predicate with an all-free goal reads
//     that goal instead of a restricted copy with its own magic predicate
//     (modeShared): p is computed once, not once per adornment.
//
// The decision depends on the program and the query only, never on the
// data or on time, and every mode gives the same answers and confidences.
func QueryUnit(p *datalog.Program, q datalog.Atom, goal bool) (*eval.Unit, eval.QueryMode) {
	if !goal || !goalDirected(p, q) {
		return NewMagicBuilder(p, q).plainQuery(), eval.ModePlain
	}
	demanded, free := allFreeGoals(p, q)
	switch {
	case len(free) == 0:
		return NewMagicBuilder(p, q).Rewrite(nil), eval.ModeMagic
	case len(free) == len(demanded):
		return NewMagicBuilder(p, q).plainQuery(), eval.ModeBottomUp
	default:
		return NewMagicBuilder(p, q).Rewrite(free), eval.ModeShared
	}
}

// raceUnit is the goal-directed unit of q over p that raceQuery races
// against the bottom-up evaluation: the plain magic-set rewrite, every goal
// with its own adornment. The cost check of queryUnit sends a mined program
// to bottom-up evaluation, since its rules with constants demand every
// relation with no argument bound, and its shared mode then reads the
// query's own goal all free too; but an all-free goal is computed only once
// its (weighted) magic fact is derived, so a query whose demand reaches few
// of those rules computes little (a fifth of Infer's joins, or less, on
// disjoint communities: TestQueryWorkOverMinedProgram), and when the demand
// does reach everything the race bounds the cost by the bottom-up
// evaluation's.
func raceUnit(p *datalog.Program, q datalog.Atom) *eval.Unit {
	return NewMagicBuilder(p, q).Rewrite(nil)
}

// boundQuery reports whether q has a constant or no argument: a query
// whose goal binds something, which raceQuery races. A query whose
// arguments are all variables asks for its whole predicate, which the
// rewrite computes no cheaper than the bottom-up evaluation; its rules'
// constants still make it goal-directed where the cost check allows
// (queryUnit).
func boundQuery(q datalog.Atom) bool {
	return len(q.Args) == 0 || slices.ContainsFunc(q.Args, func(t datalog.Term) bool { return t.Kind != datalog.Var })
}

// goalDirected reports whether q over p is a candidate for the magic-set
// rewrite: q's predicate is defined by rules. The demand then comes from
// q's constants (symbols and numbers) and from the constants of the rules'
// bodies, as in `near(X) :- path(1995, X)` for near(X)? or `goal() :-
// path(1, 9)` for goal()?; when there is none, every goal is all free and
// the cost check evaluates q bottom-up (see queryUnit).
func goalDirected(p *datalog.Program, q datalog.Atom) bool {
	return slices.ContainsFunc(p.Rules, func(r datalog.Rule) bool { return r.Head.Pred == q.Pred })
}

// allFreeGoals runs the magic-set rewrite of q over p without building
// rules and returns the predicates it adorns and, among them, those it
// demands with every argument free.
func allFreeGoals(p *datalog.Program, q datalog.Atom) (demanded, free map[string]bool) {
	b := newDryBuilder(p, q)
	b.Rewrite(nil)
	demanded, free = map[string]bool{}, map[string]bool{}
	for g := range b.done {
		demanded[g.pred] = true
		if g.ad != "" && !strings.Contains(g.ad, "b") {
			free[g.pred] = true
		}
	}
	return demanded, free
}
