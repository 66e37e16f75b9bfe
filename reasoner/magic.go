package reasoner

import (
	"slices"

	"github.com/drumql/drumql/datalog"
)

// Internal predicate names start with a NUL byte, which no user predicate
// can contain by accident.
const (
	ansPred = "\x00ans"
)

func adornedName(p, ad string) string { return "\x00a\x00" + p + "\x00" + ad }
func magicName(p, ad string) string   { return "\x00m\x00" + p + "\x00" + ad }

// defines returns, per predicate, the indices of the rules that define it.
func defines(p *datalog.Program) map[string][]int {
	m := map[string][]int{}
	for i := range p.Rules {
		h := p.Rules[i].Head.Pred
		m[h] = append(m[h], i)
	}
	return m
}

// closure returns the predicates the given ones depend on (themselves
// included), through the rules of p.
func closure(p *datalog.Program, defs map[string][]int, roots ...string) map[string]bool {
	seen := map[string]bool{}
	stack := slices.Clone(roots)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		for _, ri := range defs[x] {
			for _, l := range p.Rules[ri].Body {
				if l.Kind != datalog.Comparison && !seen[l.Atom.Pred] {
					stack = append(stack, l.Atom.Pred)
				}
			}
		}
	}
	return seen
}

// queryVars returns the distinct named variables of a, in order of first
// appearance.
func queryVars(a datalog.Atom) []datalog.Term {
	var vs []datalog.Term
	for _, t := range a.Args {
		if t.Kind == datalog.Var && t.Value != "_" && !slices.ContainsFunc(vs, func(u datalog.Term) bool { return u.Value == t.Value }) {
			vs = append(vs, datalog.Term{Kind: datalog.Var, Value: t.Value})
		}
	}
	return vs
}

// queryUnit builds the evaluation unit of query q over p: the rules q
// depends on and the answer rule `ans(vars) :- q`. When goal is set and q
// has a constant, the rules are rewritten with magic sets so that only the
// facts relevant to the constants are derived. Predicates reached through
// negation (and everything they depend on) are evaluated in full with their
// original rules; the rest is adorned.
func queryUnit(p *datalog.Program, q datalog.Atom, goal bool) *unit {
	defs := defines(p)
	rel := closure(p, defs, q.Pred)
	out := &datalog.Program{}
	u := &unit{prog: out, internal: map[string]string{ansPred: ""}, answer: ansPred}
	for i := range p.Rules {
		u.descs = append(u.descs, describeRule(&p.Rules[i]))
	}
	for i := range p.Facts {
		f := &p.Facts[i]
		u.facts = append(u.facts, describeFact(f))
		if rel[f.Atom.Pred] {
			out.Facts = append(out.Facts, *f)
		} else {
			// keep the index space of facts: an impossible placeholder is
			// not needed, provenance uses the index in p.Facts.
			out.Facts = append(out.Facts, datalog.Fact{Weight: -1, Atom: f.Atom, Pos: f.Pos})
		}
	}
	addRule := func(r datalog.Rule, m ruleMeta) {
		out.Rules = append(out.Rules, r)
		u.meta = append(u.meta, m)
	}
	ans := datalog.Atom{Pred: ansPred, Args: queryVars(q)}
	hasConst := slices.ContainsFunc(q.Args, func(t datalog.Term) bool { return t.Kind != datalog.Var })
	if !goal || !hasConst || len(defs[q.Pred]) == 0 {
		for i := range p.Rules {
			if rel[p.Rules[i].Head.Pred] {
				addRule(p.Rules[i], ruleMeta{src: i})
			}
		}
		if len(ans.Args) == len(q.Args) && len(defs[q.Pred]) > 0 {
			u.answer = q.Pred // distinct variables: the relation is the answer
			return u
		}
		addRule(datalog.Rule{Weight: 1, Head: ans, Body: []datalog.Literal{{Kind: datalog.Positive, Atom: q}}}, ruleMeta{src: -1, copy: true})
		return u
	}
	// Full evaluation for what negation reaches.
	var negRoots []string
	for i := range p.Rules {
		if !rel[p.Rules[i].Head.Pred] {
			continue
		}
		for _, l := range p.Rules[i].Body {
			if l.Kind == datalog.Negated && len(defs[l.Atom.Pred]) > 0 {
				negRoots = append(negRoots, l.Atom.Pred)
			}
		}
	}
	full := closure(p, defs, negRoots...)
	for i := range p.Rules {
		if full[p.Rules[i].Head.Pred] {
			addRule(p.Rules[i], ruleMeta{src: i})
		}
	}
	adorned := func(pred string) bool { return len(defs[pred]) > 0 && !full[pred] }

	type goalKey struct{ pred, ad string }
	done := map[goalKey]bool{}
	var work []goalKey
	adornment := func(a datalog.Atom, bound map[string]bool) (string, []datalog.Term) {
		b := make([]byte, len(a.Args))
		var args []datalog.Term
		for i, t := range a.Args {
			if t.Kind != datalog.Var || (t.Value != "_" && bound[t.Value]) {
				b[i] = 'b'
				args = append(args, t)
			} else {
				b[i] = 'f'
			}
		}
		return string(b), args
	}
	demand := func(pred, ad string) {
		k := goalKey{pred, ad}
		if !done[k] {
			done[k] = true
			work = append(work, k)
		}
	}
	// The query: seed the magic predicate and add the answer rule.
	qad, qargs := adornment(q, nil)
	var qBody datalog.Atom
	if adorned(q.Pred) {
		demand(q.Pred, qad)
		mp := magicName(q.Pred, qad)
		u.internal[mp] = ""
		addRule(datalog.Rule{Weight: 1, Head: datalog.Atom{Pred: mp, Args: qargs}}, ruleMeta{src: -1, crisp: true})
		qBody = datalog.Atom{Pred: adornedName(q.Pred, qad), Args: q.Args}
	} else {
		qBody = q
	}
	addRule(datalog.Rule{Weight: 1, Head: ans, Body: []datalog.Literal{{Kind: datalog.Positive, Atom: qBody}}}, ruleMeta{src: -1, copy: true})

	for len(work) > 0 {
		g := work[0]
		work = work[1:]
		an, mn := adornedName(g.pred, g.ad), magicName(g.pred, g.ad)
		u.internal[an] = g.pred
		u.internal[mn] = ""
		// Bridge: the store's and the program's facts of the predicate.
		var arity int
		for _, ri := range defs[g.pred] {
			arity = len(p.Rules[ri].Head.Args)
		}
		vars := make([]datalog.Term, arity)
		var mvars []datalog.Term
		for i := range vars {
			vars[i] = datalog.Term{Kind: datalog.Var, Value: "X" + string(rune('0'+i%10)) + string(rune('a'+i/10))}
			if g.ad[i] == 'b' {
				mvars = append(mvars, vars[i])
			}
		}
		addRule(datalog.Rule{Weight: 1, Head: datalog.Atom{Pred: an, Args: vars}, Body: []datalog.Literal{
			{Kind: datalog.Positive, Atom: datalog.Atom{Pred: mn, Args: mvars}},
			{Kind: datalog.Positive, Atom: datalog.Atom{Pred: g.pred, Args: vars}},
		}}, ruleMeta{src: -1, copy: true, guard: []bool{true, false}})

		for _, ri := range defs[g.pred] {
			r := &p.Rules[ri]
			bound := map[string]bool{}
			var guardArgs []datalog.Term
			for i, t := range r.Head.Args {
				if g.ad[i] == 'b' {
					guardArgs = append(guardArgs, t)
					if t.Kind == datalog.Var {
						bound[t.Value] = true
					}
				}
			}
			guardLit := datalog.Literal{Kind: datalog.Positive, Atom: datalog.Atom{Pred: mn, Args: guardArgs}}
			// Sideways information passing: greedily the positive literal
			// with the most bound arguments, extensional ones first.
			used := make([]bool, len(r.Body))
			prefix := []datalog.Literal{guardLit}
			newBody := make([]datalog.Literal, len(r.Body))
			copy(newBody, r.Body)
			for {
				best, bestN, bestEDB := -1, -1, false
				for j, l := range r.Body {
					if used[j] || l.Kind != datalog.Positive {
						continue
					}
					n := 0
					for _, t := range l.Atom.Args {
						if t.Kind != datalog.Var || bound[t.Value] {
							n++
						}
					}
					edb := !adorned(l.Atom.Pred)
					if n > bestN || (n == bestN && edb && !bestEDB) {
						best, bestN, bestEDB = j, n, edb
					}
				}
				if best < 0 {
					break
				}
				used[best] = true
				l := r.Body[best]
				if adorned(l.Atom.Pred) {
					ad, args := adornment(l.Atom, bound)
					demand(l.Atom.Pred, ad)
					m := magicName(l.Atom.Pred, ad)
					u.internal[m] = ""
					guard := make([]bool, len(prefix))
					guard[0] = true
					addRule(datalog.Rule{Weight: 1, Head: datalog.Atom{Pred: m, Args: args}, Body: slices.Clone(prefix)},
						ruleMeta{src: -1, crisp: true, guard: guard})
					l.Atom = datalog.Atom{Pred: adornedName(l.Atom.Pred, ad), Args: l.Atom.Args, Pos: l.Atom.Pos}
					newBody[best] = l
				}
				prefix = append(prefix, l)
				for _, t := range l.Atom.Args {
					if t.Kind == datalog.Var && t.Value != "_" {
						bound[t.Value] = true
					}
				}
			}
			body := append([]datalog.Literal{guardLit}, newBody...)
			guard := make([]bool, len(body))
			guard[0] = true
			nr := *r
			nr.Comment = ""
			nr.Head = datalog.Atom{Pred: an, Args: r.Head.Args, Pos: r.Head.Pos}
			nr.Body = body
			addRule(nr, ruleMeta{src: ri, guard: guard})
		}
	}
	return u
}
