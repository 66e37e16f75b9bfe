package souffle

import (
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// Subsumption: `r(x) <= r(y) :- body.` removes the tuple r(x) from r when
// another tuple r(y) of r (a different tuple) and body hold. It is
// evaluated as
//
//	"r/dominated"(x) :- r(x), r(y), body, (x1 != y1 ; x2 != y2 ...).
//	"r/kept"(X...) :- r(X...), !"r/dominated"(X...).
//
// and every other rule, and the outputs, read "r/kept" for r. A relation
// whose rules read it is evaluated with reasoner.Options.Subsume (see
// subsume).

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
// every other rule reading "r/kept" for r. When r is recursive (a rule of
// r reads r, through other relations or not), the rules of its recursion
// read r, and the evaluation removes its dominated tuples round by round
// as Soufflé does (reasoner.Options.Subsume, p.recursive), with
// "r/dominated"'s rules; at the end none is left, and "r/kept" is r.
// Either way the outputs and the other rules read "r/kept".
func (p *Program) subsume(prog *datalog.Program) error {
	if len(p.subsumed) == 0 {
		return nil
	}
	sub := map[string]bool{}
	for _, rel := range p.subsumed {
		sub[rel] = true
	}
	reach := dependsOn(prog)
	for _, rel := range p.subsumed {
		if reach(rel, rel) {
			// Recursive: dominated tuples are removed round by round.
			if p.recursive == nil {
				p.recursive = map[string]string{}
			}
			p.recursive[rel] = dominated(rel)
		}
	}
	for i := range prog.Rules {
		r := &prog.Rules[i]
		head := r.Head.Pred
		own, _ := strings.CutSuffix(head, "/dominated")
		r.BodyAtoms(func(l *datalog.Literal, _ bool) {
			rel := l.Atom.Pred
			// A rule of the relation's recursion, or its domination
			// rules, read the relation; every other rule what is kept.
			if sub[rel] && rel != own && !(reach(rel, head) && reach(head, rel)) {
				l.Atom.Pred = kept(rel)
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

// dependsOn returns whether a relation of prog depends on another, through
// one rule or more (a relation depends on itself only through a cycle).
func dependsOn(prog *datalog.Program) func(from, to string) bool {
	edges := map[string][]string{}
	for i := range prog.Rules {
		r := &prog.Rules[i]
		r.BodyAtoms(func(l *datalog.Literal, _ bool) {
			edges[r.Head.Pred] = append(edges[r.Head.Pred], l.Atom.Pred)
		})
	}
	memo := map[string]map[string]bool{}
	return func(from, to string) bool {
		seen, ok := memo[from]
		if !ok {
			seen = map[string]bool{}
			stack := slices.Clone(edges[from])
			for len(stack) > 0 {
				n := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if !seen[n] {
					seen[n] = true
					stack = append(stack, edges[n]...)
				}
			}
			memo[from] = seen
		}
		return seen[to]
	}
}
