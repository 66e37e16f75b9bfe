package query

import (
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
)

// constRule is a rule with a constant in the forms rule learners such as
// AnyBURL learn, kept for link prediction's fast path:
//
//	h(X, c) :- b(X, d).   h(X, c) :- b(d, X).
//	h(X, c) :- b(X, _).   h(X, c) :- b(_, X).
//
// and the same with the constant first in the head, h(c, X), and the
// two-step bodies of AnyBURL's acyclic rules of length 2:
//
//	h(X, c) :- b1(X, Y), b2(Y, d).   (either argument order in each atom)
//
// The body relations are relations of the graph (read from the CSR
// snapshot).
type constRule struct {
	rule   int32
	w      float64
	cpos   int    // the head argument that holds the constant
	c      int32  // dense entity index of the head's constant, -1 if the graph lacks it
	cSym   int32  // symbol id of the head's constant (a local id if the store lacks it)
	rel    int32  // dense relation index of the body atom, -1 if the graph lacks it
	xFirst bool   // the body atom is b(X, d) rather than b(d, X)
	d      int32  // dense entity index of the body's constant; -1 for `_`; -2 if the graph lacks it
	cName  string // the head's constant
	dName  string // the body's constant ("" for `_`)
	pred   string // the body relation

	// A two-step body b1(X, Y), b2(Y, d) has a first step (pred1 != ""):
	// the fields above then describe b2, with Y in the place of X.
	pred1   string
	rel1    int32   // dense relation index of b1, -1 if the graph lacks it
	x1First bool    // b1(X, Y) rather than b1(Y, X)
	xs      []int32 // every X the two-step body holds for (dense, sorted)
}

// constRuleOf recognises a rule of the forms above (constants are symbols;
// the body atom's other argument is a symbol or, in one-atom bodies, the
// anonymous variable).
func constRuleOf(r *datalog.Rule) (constRule, bool) {
	if len(r.Head.Args) != 2 || len(r.Body) < 1 || len(r.Body) > 2 || r.HasCompound() {
		return constRule{}, false
	}
	for _, l := range r.Body {
		if l.Kind != datalog.Positive || len(l.Atom.Args) != 2 {
			return constRule{}, false
		}
	}
	l := r.Body[len(r.Body)-1]
	h0, h1 := r.Head.Args[0], r.Head.Args[1]
	var cr constRule
	var x datalog.Term
	switch {
	case h0.Kind == datalog.Var && h0.Value != "_" && h1.Kind == datalog.Symbol:
		cr.cpos, cr.cName, x = 1, h1.Value, h0
	case h1.Kind == datalog.Var && h1.Value != "_" && h0.Kind == datalog.Symbol:
		cr.cpos, cr.cName, x = 0, h0.Value, h1
	default:
		return constRule{}, false
	}
	if len(r.Body) == 2 {
		// b1(X, Y), b2(Y, d): Y is a named variable of b1 and b2 only.
		a := r.Body[0].Atom
		var y datalog.Term
		switch {
		case a.Args[0].Kind == datalog.Var && a.Args[0].Value == x.Value:
			cr.x1First, y = true, a.Args[1]
		case a.Args[1].Kind == datalog.Var && a.Args[1].Value == x.Value:
			y = a.Args[0]
		default:
			return constRule{}, false
		}
		if y.Kind != datalog.Var || y.Value == "_" || y.Value == x.Value {
			return constRule{}, false
		}
		cr.pred1, x = a.Pred, y
	}
	b0, b1 := l.Atom.Args[0], l.Atom.Args[1]
	var other datalog.Term
	switch {
	case b0.Kind == datalog.Var && b0.Value == x.Value:
		cr.xFirst, other = true, b1
	case b1.Kind == datalog.Var && b1.Value == x.Value:
		other = b0
	default:
		return constRule{}, false
	}
	switch {
	case other.Kind == datalog.Symbol:
		cr.dName = other.Value
	case other.Kind == datalog.Var && other.Value == "_" && cr.pred1 == "":
	default:
		return constRule{}, false
	}
	cr.pred = l.Atom.Pred
	cr.w = eval.WeightOf(r.Weight)
	return cr, true
}

// resolveConst sets the dense indices of cr's constants and relation.
func (cd *chainData) resolveConst(en *Engine, cr *constRule, rel func(string) int32) {
	dense := func(name string) int32 {
		id, ok := en.Syms.Lookup(name)
		if !ok || int(id) >= len(cd.dense) {
			return -1
		}
		return cd.dense[id]
	}
	cr.rel = rel(cr.pred)
	cr.c = dense(cr.cName)
	cr.cSym = -1
	if id, err := en.Syms.Id(cr.cName); err == nil {
		cr.cSym = int32(id)
	}
	cr.d = -1
	if cr.dName != "" {
		if cr.d = dense(cr.dName); cr.d < 0 {
			cr.d = -2
		}
	}
	if cr.rel >= 0 && cr.d == -1 {
		cd.needAny(cr.rel, cr.xFirst)
	}
	if cr.pred1 != "" {
		cr.rel1 = rel(cr.pred1)
		cr.xs = cd.twoStepXs(cr)
	}
}

// twoStepXs computes every X (dense, sorted) for which the two-step body
// b1(X, Y), b2(Y, d) of cr holds: the holders through b1 of every Y that
// b2(Y, d) holds for.
func (cd *chainData) twoStepXs(cr *constRule) []int32 {
	if cr.rel1 < 0 {
		return nil
	}
	m := &cd.snap.In[cr.rel1] // b1(X, Y): the subjects of Y
	if !cr.x1First {
		m = &cd.snap.Out[cr.rel1] // b1(Y, X): the objects of Y
	}
	var xs []int32
	for _, y := range cd.stepXs(cr) {
		xs = append(xs, m.Row(y)...)
	}
	slices.Sort(xs)
	return slices.Compact(xs)
}

// needAny computes, once, the entities with at least one fact of relation
// rel as subject (first) or as object.
func (cd *chainData) needAny(rel int32, first bool) {
	if cd.anyOf == nil {
		cd.anyOf = map[[2]int32][]int32{}
	}
	key := [2]int32{rel, 0}
	m := &cd.snap.Out[rel]
	if !first {
		key[1], m = 1, &cd.snap.In[rel]
	}
	if _, ok := cd.anyOf[key]; ok {
		return
	}
	var xs []int32
	for k := range m.Stored() {
		if m.RowPtr[k+1] > m.RowPtr[k] {
			xs = append(xs, m.RowAt(k))
		}
	}
	cd.anyOf[key] = xs
}

// bodyHolds reports whether cr's body holds for X = x (a dense index).
func (cd *chainData) bodyHolds(cr *constRule, x int32) bool {
	if cr.pred1 == "" {
		return cd.stepHolds(cr, x)
	}
	_, found := slices.BinarySearch(cr.xs, x)
	return found
}

// stepHolds reports whether cr's last body atom, b(X, d) or b2(Y, d),
// holds for its variable = x (a dense index).
func (cd *chainData) stepHolds(cr *constRule, x int32) bool {
	if cr.rel < 0 || cr.d == -2 {
		return false
	}
	m := &cd.snap.Out[cr.rel] // b(X, d): d among X's objects
	if !cr.xFirst {
		m = &cd.snap.In[cr.rel] // b(d, X): d among X's subjects
	}
	row := m.Row(x)
	if cr.d == -1 {
		return len(row) > 0
	}
	_, found := slices.BinarySearch(row, cr.d)
	return found
}

// bodyXs returns every X (dense indices, sorted) cr's body holds for.
func (cd *chainData) bodyXs(cr *constRule) []int32 {
	if cr.pred1 != "" {
		return cr.xs
	}
	return cd.stepXs(cr)
}

// stepXs returns every value (dense indices, sorted) of the variable of
// cr's last body atom for which that atom holds.
func (cd *chainData) stepXs(cr *constRule) []int32 {
	if cr.rel < 0 || cr.d == -2 {
		return nil
	}
	if cr.d == -1 {
		key := [2]int32{cr.rel, 0}
		if !cr.xFirst {
			key[1] = 1
		}
		return cd.anyOf[key]
	}
	m := &cd.snap.In[cr.rel] // b(X, d): the subjects of d
	if !cr.xFirst {
		m = &cd.snap.Out[cr.rel] // b(d, X): the objects of d
	}
	return m.Row(cr.d)
}

// constHits appends the hits of h's rules with constants for the entity
// given (dense index gid, -1 when the graph lacks it) as the head's first
// argument, or its second when inverse.
func (cd *chainData) constHits(ents []HitEntry, h *chainHead, gid int32, inverse bool, min float64) []HitEntry {
	if gid < 0 {
		return ents
	}
	gp := 0
	if inverse {
		gp = 1
	}
	for i := range h.lpConst {
		cr := &h.lpConst[i]
		if cr.w < min {
			continue
		}
		if cr.cpos != gp {
			// The given entity is X: the rule predicts its constant (which
			// need not be an entity of the graph).
			if cr.cSym >= 0 && cd.bodyHolds(cr, gid) {
				ents = append(ents, HitEntry{cr.cSym, cr.rule, cr.w})
			}
			continue
		}
		if cr.c != gid {
			continue
		}
		// The given entity is the rule's constant: every X its body holds
		// for is a candidate.
		for _, x := range cd.bodyXs(cr) {
			ents = append(ents, HitEntry{int32(cd.snap.Entities[x]), cr.rule, cr.w})
		}
	}
	return ents
}
