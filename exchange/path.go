package exchange

import "github.com/drumql/drumql/datalog"

// walkPath orders the binary atoms of a body as a path from the variable
// start, the only shape AnyBURL's rules have: the one atom that holds
// start, then the one atom that holds the other term of that atom, and so
// on until every atom is used. It returns the order of the atoms and the
// terms along the path (terms[0] is start, terms[i+1] the other term of
// the i-th atom of the path; an atom r(V, V) has ReflexiveToken as its
// other term). It fails when a step finds no atom or more than one, a
// variable comes back, or a term inside the path (every one but the last)
// is a constant or `_`.
func walkPath(start string, atoms []datalog.Atom) (order []int, terms []datalog.Term, ok bool) {
	used := make([]bool, len(atoms))
	seen := map[string]bool{start: true}
	cur := variable(start)
	terms = append(terms, cur)
	for step := range atoms {
		next := -1
		for i, a := range atoms {
			if used[i] || !holds(a, cur.Value) {
				continue
			}
			if next >= 0 {
				return nil, nil, false
			}
			next = i
		}
		if next < 0 {
			return nil, nil, false
		}
		a := atoms[next]
		other := a.Args[1]
		if isVar(a.Args[1], cur.Value) {
			other = a.Args[0]
		}
		if isVar(other, cur.Value) {
			// r(V, V): AnyBURL writes it r(V,me_myself_i), so it ends a
			// path as a constant would.
			other = symbol(ReflexiveToken)
		}
		if other.Kind == datalog.Var && seen[other.Value] ||
			step < len(atoms)-1 && (other.Kind != datalog.Var || other.Value == "_") {
			return nil, nil, false
		}
		used[next] = true
		order = append(order, next)
		terms = append(terms, other)
		if other.Kind == datalog.Var {
			seen[other.Value] = true
		}
		cur = other
	}
	return order, terms, true
}

// holds reports whether atom a has the variable name as an argument.
func holds(a datalog.Atom, name string) bool {
	return isVar(a.Args[0], name) || isVar(a.Args[1], name)
}

// isVar reports whether t is the named variable name (never `_`).
func isVar(t datalog.Term, name string) bool {
	return t.Kind == datalog.Var && t.Value == name && name != "_"
}

// chainIdentity returns the comparisons drumql mine writes for a chain
// rule h(A, B) :- path from A to B (miner's makeRule): A != B for two or
// more body atoms (the head relates two different entities), and for
// three (A -> C -> D -> B) also A != D and C != B (the path does not come
// back to its start nor reach its end early). That is the part of
// AnyBURL's object identity drumql's own rules state, so a mined chain rule
// written to AnyBURL and read back is the same rule. It returns nil for a
// rule that is not a chain between two different head variables.
func chainIdentity(head datalog.Atom, body []datalog.Atom) []datalog.Literal {
	if len(head.Args) != 2 || len(body) < 2 || head.Args[0].Kind != datalog.Var ||
		head.Args[1].Kind != datalog.Var || head.Args[0].Value == head.Args[1].Value {
		return nil
	}
	_, terms, ok := walkPath(head.Args[0].Value, body)
	if !ok || !isVar(terms[len(terms)-1], head.Args[1].Value) {
		return nil
	}
	a, b := terms[0], terms[len(terms)-1]
	lits := []datalog.Literal{neq(a, b)}
	if len(body) == 3 {
		lits = append(lits, neq(a, terms[2]), neq(terms[1], b))
	}
	return lits
}
