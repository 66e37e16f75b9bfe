package souffle

import (
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
)

// Subsumption: `r(x) <= r(y) :- body.` removes the tuple r(x) from r when
// another tuple r(y) of r (a different tuple) and body hold. For a
// relation r that is not recursive, or whose one subsumption compares one
// position and keeps the others (a lattice: `r(k, d1) <= r(k, d2) :- d2 <=
// d1.`, the shortest distance per key), it is evaluated as
//
//	"r/dominated"(x) :- r(x), r(y), body, (x1 != y1 ; x2 != y2 ...).
//	"r/kept"(X...) :- r(X...), !"r/dominated"(X...).
//
// and every other rule, and the outputs, read "r/kept" for r. A relation
// whose rules read it (recursion through its subsumption) is not
// supported.

// dominated and kept name the relations of a subsumed relation.
func dominated(rel string) string { return rel + "/dominated" }
func kept(rel string) string      { return rel + "/kept" }

// subsumptive rewrites the tokens ts of a clause (its final "." included)
// when it is a subsumption `H1 <= H2 :- B.`; ok is false otherwise.
func (r *reader) subsumptive(ts []token) ([]token, bool, error) {
	le, neck, depth := -1, -1, 0
	for i, t := range ts {
		switch {
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
		case depth == 0 && t.kind == tPunct && t.text == "<=" && neck < 0 && le < 0:
			le = i
		case depth == 0 && t.kind == tPunct && t.text == ":-" && neck < 0:
			neck = i
		}
	}
	if le < 0 || neck < 0 || le > neck {
		return nil, false, nil
	}
	h1, h2 := ts[:le], ts[le+1:neck]
	rel, args1, err := r.headAtom(h1)
	if err != nil {
		return nil, false, err
	}
	rel2, args2, err := r.headAtom(h2)
	if err != nil {
		return nil, false, err
	}
	if rel.text != rel2.text || len(args1) != len(args2) {
		return nil, false, errAt(h2[0].at, "a subsumption relates two tuples of one relation (%s, not %s)", rel.text, rel2.text)
	}
	r.p.noteLattice(rel.text, args1, args2, ts[neck+1:len(ts)-1])
	d := r.p.Decls[rel.text]
	if _, ok := r.p.Decls[dominated(rel.text)]; !ok {
		r.p.Decls[dominated(rel.text)] = &Decl{Name: dominated(rel.text), Cols: d.Cols, At: rel.at}
		r.p.Decls[kept(rel.text)] = &Decl{Name: kept(rel.text), Cols: d.Cols, At: rel.at}
		r.p.subsumed = append(r.p.subsumed, rel.text)
	}
	at := rel.at
	punct := func(s string) token { return token{kind: tPunct, text: s, at: at} }
	out := []token{{kind: tString, text: strconv.Quote(dominated(rel.text)), at: at}}
	out = append(out, h1[1:]...)
	out = append(out, ts[neck])
	out = append(out, h1...)
	out = append(out, punct(","))
	out = append(out, h2...)
	out = append(out, punct(","))
	out = append(out, ts[neck+1:len(ts)-1]...)
	if len(args1) > 0 {
		// a different tuple
		out = append(out, punct(","), punct("("))
		for i := range args1 {
			if i > 0 {
				out = append(out, punct(";"))
			}
			out = append(out, args1[i]...)
			out = append(out, punct("!="))
			out = append(out, args2[i]...)
		}
		out = append(out, punct(")"))
	}
	return append(out, ts[len(ts)-1]), true, nil
}

// headAtom reads the tokens of an atom R(a, ...) of a declared relation:
// its name and its arguments.
func (r *reader) headAtom(ts []token) (token, [][]token, error) {
	if len(ts) < 3 || ts[0].kind != tIdent || ts[1].text != "(" || matching(ts, 1) != len(ts)-1 {
		return token{}, nil, errAt(ts[0].at, "expected an atom on each side of a subsumption (<=)")
	}
	if _, ok := r.p.Decls[ts[0].text]; !ok {
		return token{}, nil, errAt(ts[0].at, "relation %s is not declared (.decl %s(...))", ts[0].text, ts[0].text)
	}
	var args [][]token
	start, depth := 2, 0
	for i := 2; i < len(ts)-1; i++ {
		switch {
		case isOpen(ts[i]):
			depth++
		case isClose(ts[i]):
			depth--
		case depth == 0 && ts[i].text == ",":
			args = append(args, ts[start:i])
			start = i + 1
		}
	}
	if start < len(ts)-1 {
		args = append(args, ts[start:len(ts)-1])
	}
	return ts[0], args, nil
}

// subsume makes the rules of the subsumed relations: each "r/kept", and
// every other rule reading "r/kept" for r. A rule of r that reads r is an
// error (recursion through the subsumption is not supported), unless r's
// subsumption is a lattice (noteLattice): its rules then read r, the
// evaluation adds only tuples that improve their key's value
// (reasoner.Options.Lattice), and the outputs and the other rules read
// "r/kept".
func (p *Program) subsume(prog *datalog.Program) error {
	if len(p.subsumed) == 0 {
		return nil
	}
	sub := map[string]bool{}
	for _, rel := range p.subsumed {
		sub[rel] = true
	}
	for i := range prog.Rules {
		r := &prog.Rules[i]
		head := r.Head.Pred
		if sub[head] {
			if _, ok := p.lattices[head]; ok {
				continue // its rules read it: the lattice keeps only improvements
			}
			var err error
			r.BodyAtoms(func(l *datalog.Literal, _ bool) {
				if l.Atom.Pred == head && err == nil {
					at := l.Atom.Pos
					err = errAt(pos{at.File, at.Line, at.Col}, "unsupported: subsumption (<=) of a recursive relation (%s reads %s)", head, head)
				}
			})
			if err != nil {
				return err
			}
			continue
		}
		if rel, ok := strings.CutSuffix(head, "/dominated"); ok && sub[rel] {
			continue
		}
		r.BodyAtoms(func(l *datalog.Literal, _ bool) {
			if sub[l.Atom.Pred] {
				l.Atom.Pred = kept(l.Atom.Pred)
			}
		})
	}
	for _, rel := range p.subsumed {
		d := p.Decls[rel]
		at := datalog.Pos{File: d.At.file, Line: d.At.line, Col: d.At.col}
		var args []datalog.Term
		for i := range d.Cols {
			args = append(args, datalog.Term{Kind: datalog.Var, Value: "X" + strconv.Itoa(i), Pos: at})
		}
		lit := func(kind datalog.LiteralKind, pred string) datalog.Literal {
			return datalog.Literal{Kind: kind, Atom: datalog.Atom{Pred: pred, Args: args, Pos: at}, Pos: at}
		}
		prog.Rules = append(prog.Rules, datalog.Rule{Weight: 1, Pos: at,
			Head: datalog.Atom{Pred: kept(rel), Args: args, Pos: at},
			Body: []datalog.Literal{lit(datalog.Positive, rel), lit(datalog.Negated, dominated(rel))}})
	}
	return nil
}

// noteLattice records the subsumption of rel, `rel(args1) <= rel(args2) :-
// body.`, as a lattice (reasoner.Lattice) when it is the relation's only
// subsumption and has that shape: the same variable at every position of
// both atoms but one, where two variables a (args1) and b (args2) differ,
// and a body that only compares them (b <= a, b < a, a >= b or a > b: the
// smallest value is the best; the other way round, the largest).
func (p *Program) noteLattice(rel string, args1, args2 [][]token, body []token) {
	if p.lattices == nil {
		p.lattices, p.notLattice = map[string]reasoner.Lattice{}, map[string]bool{}
	}
	_, seen := p.lattices[rel]
	if seen || p.notLattice[rel] {
		delete(p.lattices, rel)
		p.notLattice[rel] = true
		return
	}
	p.notLattice[rel] = true
	pos, a, b := -1, "", ""
	for i := range args1 {
		x, y := args1[i], args2[i]
		if len(x) != 1 || len(y) != 1 || x[0].kind != tIdent || y[0].kind != tIdent || x[0].text == "_" || y[0].text == "_" {
			return
		}
		if x[0].text == y[0].text {
			continue
		}
		if pos >= 0 {
			return
		}
		pos, a, b = i, x[0].text, y[0].text
	}
	if pos < 0 || len(body) != 3 || body[0].kind != tIdent || body[2].kind != tIdent {
		return
	}
	l, r, op := body[0].text, body[2].text, body[1].text
	var min bool
	switch {
	case l == b && r == a && (op == "<=" || op == "<"), l == a && r == b && (op == ">=" || op == ">"):
		min = true
	case l == b && r == a && (op == ">=" || op == ">"), l == a && r == b && (op == "<=" || op == "<"):
	default:
		return
	}
	p.lattices[rel] = reasoner.Lattice{Pos: pos, Min: min}
	delete(p.notLattice, rel)
}
