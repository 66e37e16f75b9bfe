package goal

import (
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
)

// Internal predicate names start with a NUL byte, which no user predicate
// can contain by accident.
const (
	AnsPred = "\x00ans"
)

func adornedName(p, ad string) string { return "\x00a\x00" + p + "\x00" + ad }
func magicName(p, ad string) string   { return "\x00m\x00" + p + "\x00" + ad }

// Defines returns, per predicate, the indices of the rules that define it.
func Defines(p *datalog.Program) map[string][]int {
	m := map[string][]int{}
	for i := range p.Rules {
		h := p.Rules[i].Head.Pred
		m[h] = append(m[h], i)
	}
	return m
}

// Closure returns the predicates the given ones depend on (themselves
// included), through the rules of p.
func Closure(p *datalog.Program, defs map[string][]int, roots ...string) map[string]bool {
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
			p.Rules[ri].BodyAtoms(func(l *datalog.Literal, _ bool) {
				if !seen[l.Atom.Pred] {
					stack = append(stack, l.Atom.Pred)
				}
			})
		}
	}
	return seen
}

// Rewrite builds the magic-set rewrite of the query. Every goal of a
// predicate in shared is replaced by its all-free goal.
func (b *magicBuilder) Rewrite(shared map[string]bool) *eval.Unit {
	if b.wide == nil {
		b.wide = demandedGoals(b.p, b.q)
	}
	b.shared = shared
	b.addNegationClosure()
	b.seedQuery()
	for len(b.work) > 0 {
		g := b.work[0]
		b.work = b.work[1:]
		b.addBridge(g)
		for _, ri := range b.defs[g.pred] {
			b.addAdornedRule(g, ri)
		}
	}
	return b.u
}

// goalKey is a predicate with an adornment: per argument, b (bound) or f
// (free).
type goalKey struct{ pred, ad string }

// magicBuilder holds the state of the rewrite of one query.
type magicBuilder struct {
	p    *datalog.Program
	q    datalog.Atom
	defs map[string][]int // rules defining each predicate
	rel  map[string]bool  // predicates q depends on
	full map[string]bool  // predicates evaluated in full (reached through negation)
	u    *eval.Unit       // the unit built; u.prog is the rewritten program
	done map[goalKey]bool // goals demanded so far
	work []goalKey        // goals demanded and not yet rewritten, in order
	// shared holds the predicates whose goals are all replaced by their
	// all-free goal (see queryUnit).
	shared map[string]bool
	// dry makes the builder find the goals without building the rules.
	dry bool
	// wide holds the goals that a rewrite with every constant bound
	// demands (demandedGoals); a literal with both a bound variable and
	// a constant demands the goal of its bound variables alone when wide
	// has it (see widened). nil until rewrite sets it.
	wide map[goalKey]bool
	// sups names the supplementary relations built so far, by the
	// canonical text of their rule (see supplementary).
	sups map[string]string
}

// NewMagicBuilder starts the unit of q over p: rule and fact descriptions
// for provenance, and the facts of the predicates q depends on (the others
// keep their index with a negative weight, which load skips).
func NewMagicBuilder(p *datalog.Program, q datalog.Atom) *magicBuilder {
	b := newDryBuilder(p, q)
	b.dry = false
	out := b.u.Prog
	// Only the rules q depends on can be in the unit: the others are not
	// described (a query over a file of 100,000 rules described them all).
	b.u.Descs = make([]eval.RuleDesc, len(p.Rules))
	for i := range p.Rules {
		if b.rel[p.Rules[i].Head.Pred] {
			b.u.Descs[i] = eval.DescribeRule(&p.Rules[i])
		}
	}
	b.u.FactSrc = p.Facts
	for i := range p.Facts {
		f := &p.Facts[i]
		if b.rel[f.Atom.Pred] {
			out.Facts = append(out.Facts, *f)
		} else {
			// keep the index space of facts: provenance uses the index
			// in p.Facts.
			out.Facts = append(out.Facts, datalog.Fact{Weight: -1, Atom: f.Atom, Pos: f.Pos})
		}
	}
	return b
}

// newDryBuilder starts a rewrite of q over p that finds the goals it
// demands without building rules (magicBuilder.dry): nothing is described.
func newDryBuilder(p *datalog.Program, q datalog.Atom) *magicBuilder {
	defs := Defines(p)
	b := &magicBuilder{p: p, q: q, defs: defs, rel: Closure(p, defs, q.Pred), done: map[goalKey]bool{}, dry: true,
		sups: map[string]string{}}
	b.u = &eval.Unit{Prog: &datalog.Program{}, Internal: map[string]string{AnsPred: ""}, Answer: AnsPred}
	return b
}

// demandedGoals returns the goals that the magic-set rewrite of q over p
// demands when every constant of a literal is bound.
func demandedGoals(p *datalog.Program, q datalog.Atom) map[goalKey]bool {
	b := newDryBuilder(p, q)
	b.wide = map[goalKey]bool{}
	b.Rewrite(nil)
	return b.done
}

func (b *magicBuilder) addRule(r datalog.Rule, m eval.RuleMeta) {
	if b.dry {
		return
	}
	b.u.Prog.Rules = append(b.u.Prog.Rules, r)
	b.u.Meta = append(b.u.Meta, m)
}

// answerHead is the head of the answer rule: ans over q's variables.
func (b *magicBuilder) answerHead() datalog.Atom {
	return datalog.Atom{Pred: AnsPred, Args: eval.QueryVars(b.q)}
}

// plainQuery finishes the unit without the rewrite: the relevant rules as
// written and the answer rule (none when q's arguments are distinct
// variables: q's relation is then the answer).
func (b *magicBuilder) plainQuery() *eval.Unit {
	for i := range b.p.Rules {
		if b.rel[b.p.Rules[i].Head.Pred] {
			b.addRule(b.p.Rules[i], eval.RuleMeta{Src: i})
		}
	}
	ans := b.answerHead()
	if len(ans.Args) == len(b.q.Args) && len(b.defs[b.q.Pred]) > 0 {
		b.u.Answer = b.q.Pred
		return b.u
	}
	b.addRule(datalog.Rule{Weight: 1, Head: ans, Body: []datalog.Literal{{Kind: datalog.Positive, Atom: b.q}}}, eval.RuleMeta{Src: -1, Copy: true})
	return b.u
}

// addNegationClosure adds, with their original rules, the predicates that
// the relevant rules use under negation or in aggregates and everything
// those depend on: they are evaluated in full, which keeps the rewritten
// program stratified (and an aggregate sees all of its body).
func (b *magicBuilder) addNegationClosure() {
	var negRoots []string
	for i := range b.p.Rules {
		if !b.rel[b.p.Rules[i].Head.Pred] {
			continue
		}
		b.p.Rules[i].BodyAtoms(func(l *datalog.Literal, inAgg bool) {
			if (l.Kind == datalog.Negated || inAgg) && len(b.defs[l.Atom.Pred]) > 0 {
				negRoots = append(negRoots, l.Atom.Pred)
			}
		})
	}
	b.full = Closure(b.p, b.defs, negRoots...)
	for i := range b.p.Rules {
		if b.full[b.p.Rules[i].Head.Pred] {
			b.addRule(b.p.Rules[i], eval.RuleMeta{Src: i})
		}
	}
}

// adorned reports whether pred is rewritten: defined by rules and not
// evaluated in full.
func (b *magicBuilder) adorned(pred string) bool {
	return len(b.defs[pred]) > 0 && !b.full[pred]
}

// isBound reports whether t is bound given the bound variables: a
// constant (a symbol or a number) or a bound variable.
func isBound(t datalog.Term, bound map[string]bool) bool {
	switch t.Kind {
	case datalog.Var:
		return t.Value != "_" && bound[t.Value]
	case datalog.Compound:
		// an expression is bound when its variables are (an aggregate's
		// local variables aside: it is never an atom's argument here)
		ok := !t.X.Agg
		t.Vars(func(v datalog.Term) { ok = ok && isBound(v, bound) })
		return ok
	}
	return true
}

// magicAtom returns the atom pred(args) for the head of a magic rule, and
// the literals its body needs for the number constants among args: a
// number constant matches every symbol equal to it as a number, so the
// magic predicate gets all of them, through a fresh variable bound by the
// number's relation (numPrefix), and the relations joined with it by symbol
// find 007 as well as 7.
func (b *magicBuilder) magicAtom(pred string, args []datalog.Term) (datalog.Atom, []datalog.Literal) {
	var lits []datalog.Literal
	out := args
	for i, t := range args {
		if t.Kind != datalog.Number {
			continue
		}
		if len(lits) == 0 {
			out = slices.Clone(args)
		}
		c, _ := datalog.CanonicalNumber(t.Value)
		v := datalog.Term{Kind: datalog.Var, Value: "\x00N" + string(rune('0'+i))}
		out[i] = v
		np := eval.NumPrefix + c
		b.u.Internal[np] = ""
		lits = append(lits, datalog.Literal{Kind: datalog.Positive, Atom: datalog.Atom{Pred: np, Args: []datalog.Term{v}}})
	}
	return datalog.Atom{Pred: pred, Args: out}, lits
}

// adornment returns the adornment of a given the bound variables, and its
// bound arguments.
func adornment(a datalog.Atom, bound map[string]bool) (string, []datalog.Term) {
	ad := make([]byte, len(a.Args))
	var args []datalog.Term
	for i, t := range a.Args {
		if isBound(t, bound) {
			ad[i] = 'b'
			args = append(args, t)
		} else {
			ad[i] = 'f'
		}
	}
	return string(ad), args
}

// goalOf returns the adornment of the goal that the literal a demands given
// the bound variables, and the arguments of its magic predicate: a's
// adornment, or all free when a's predicate is shared.
func (b *magicBuilder) goalOf(a datalog.Atom, bound map[string]bool) (string, []datalog.Term) {
	if b.shared[a.Pred] {
		return strings.Repeat("f", len(a.Args)), nil
	}
	return adornment(a, bound)
}

// demand queues the goal pred/ad unless it was demanded before.
func (b *magicBuilder) demand(pred, ad string) {
	k := goalKey{pred, ad}
	if !b.done[k] {
		b.done[k] = true
		b.work = append(b.work, k)
	}
}

// seedQuery demands q's goal, seeds its magic predicate with q's constants
// and adds the answer rule over the adorned predicate.
func (b *magicBuilder) seedQuery() {
	q := b.q
	qad, qargs := b.goalOf(q, nil)
	qBody := q
	if b.adorned(q.Pred) {
		b.demand(q.Pred, qad)
		mp := magicName(q.Pred, qad)
		b.u.Internal[mp] = ""
		head, body := b.magicAtom(mp, qargs)
		b.addRule(datalog.Rule{Weight: 1, Head: head, Body: body}, eval.RuleMeta{Src: -1, Crisp: true})
		qBody = datalog.Atom{Pred: adornedName(q.Pred, qad), Args: q.Args}
	}
	b.addRule(datalog.Rule{Weight: 1, Head: b.answerHead(), Body: []datalog.Literal{{Kind: datalog.Positive, Atom: qBody}}},
		eval.RuleMeta{Src: -1, Copy: true})
}

// addBridge adds the rule that copies the store's and the program's facts
// of g's predicate into its adorned predicate, guarded by its magic
// predicate.
func (b *magicBuilder) addBridge(g goalKey) {
	an, mn := adornedName(g.pred, g.ad), magicName(g.pred, g.ad)
	b.u.Internal[an] = g.pred
	b.u.Internal[mn] = ""
	var arity int
	for _, ri := range b.defs[g.pred] {
		arity = len(b.p.Rules[ri].Head.Args)
	}
	vars := make([]datalog.Term, arity)
	var mvars []datalog.Term
	for i := range vars {
		vars[i] = datalog.Term{Kind: datalog.Var, Value: "X" + string(rune('0'+i%10)) + string(rune('a'+i/10))}
		if g.ad[i] == 'b' {
			mvars = append(mvars, vars[i])
		}
	}
	b.addRule(datalog.Rule{Weight: 1, Head: datalog.Atom{Pred: an, Args: vars}, Body: []datalog.Literal{
		{Kind: datalog.Positive, Atom: datalog.Atom{Pred: mn, Args: mvars}},
		{Kind: datalog.Positive, Atom: datalog.Atom{Pred: g.pred, Args: vars}},
	}}, eval.RuleMeta{Src: -1, Copy: true, Guard: []bool{true, false}})
}

// addAdornedRule rewrites rule ri of g's predicate for the goal g: its head
// becomes the adorned predicate, its body is guarded by g's magic
// predicate, and each adorned body literal, taken in sideways
// information-passing order, gets a magic rule demanding it from what the
// literals before it bind.
func (b *magicBuilder) addAdornedRule(g goalKey, ri int) {
	r := headVariables(&b.p.Rules[ri])
	mn := magicName(g.pred, g.ad)
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
	used := make([]bool, len(r.Body))
	prefix := []datalog.Literal{guardLit}
	newBody := slices.Clone(r.Body)
	for {
		best := b.nextSIP(r.Body, used, bound)
		if best < 0 {
			break
		}
		used[best] = true
		l := r.Body[best]
		if b.adorned(l.Atom.Pred) {
			if len(prefix) >= 3 {
				prefix = b.supplementary(prefix, r.Body, used, l)
			}
			l = b.addMagicRule(l, bound, prefix, r.Weight)
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
	nr.Head = datalog.Atom{Pred: adornedName(g.pred, g.ad), Args: r.Head.Args, Pos: r.Head.Pos}
	nr.Body = body
	b.addRule(nr, eval.RuleMeta{Src: ri, Guard: guard})
}

// supplementary returns prefix (the guard and the literals before l, at
// least three) as a supplementary literal and prefix's last literal: the
// supplementary relation holds the bindings of all but the last literal,
// projected on the variables that the last one, l and the body's literals
// not yet used (used) read. The magic rule of l then joins two literals.
//
// A magic rule with the whole prefix enumerates every path through it: for
// `h(A, B) :- a(A, C), b(C, D), c(D, B)` under a goal with A bound, the
// rule `magic_c(D) :- magic_h(A), a(A, C), b(C, D)` walks, for each
// demanded A, every D reached through each C, and through a hub C (a
// country) that is every place of the country for every place demanded.
// Projected on C first, each C is joined with b once. Under max-product
// the magic fact's confidence is the same: the best product over A and C
// is the best over C of the best over A. The relation is shared by every
// rule whose prefix is the same up to the names of its variables: a mined
// program's rules of one head start with a few hundred distinct atoms.
// A prefix with an expression is returned as it is.
func (b *magicBuilder) supplementary(prefix, body []datalog.Literal, used []bool, l datalog.Literal) []datalog.Literal {
	front, last := prefix[:len(prefix)-1], prefix[len(prefix)-1]
	later := map[string]bool{}
	mark := func(a datalog.Atom) {
		for _, t := range a.Args {
			if t.Kind == datalog.Var {
				later[t.Value] = true
			}
		}
	}
	mark(last.Atom)
	mark(l.Atom)
	for j := range body {
		if !used[j] && body[j].Kind == datalog.Positive {
			mark(body[j].Atom)
		}
	}
	// The variables kept, in order of first appearance, and the
	// canonical names of all of them.
	var keep []datalog.Term
	canon := map[string]string{}
	rename := func(a datalog.Atom) datalog.Atom {
		c := datalog.Atom{Pred: a.Pred, Args: slices.Clone(a.Args)}
		for i, t := range c.Args {
			if t.Kind == datalog.Var && t.Value != "_" {
				c.Args[i].Value = canon[t.Value]
			}
			c.Args[i].Pos = datalog.Pos{}
		}
		return c
	}
	for _, x := range front {
		for _, t := range x.Atom.Args {
			switch {
			case t.Kind == datalog.Compound:
				return prefix
			case t.Kind != datalog.Var || t.Value == "_":
			case canon[t.Value] == "":
				canon[t.Value] = "V" + strconv.Itoa(len(canon))
				if later[t.Value] {
					keep = append(keep, datalog.Term{Kind: datalog.Var, Value: t.Value})
				}
			}
		}
	}
	key := datalog.Rule{Weight: 1, Head: rename(datalog.Atom{Pred: "s", Args: keep})}
	for _, x := range front {
		key.Body = append(key.Body, datalog.Literal{Kind: datalog.Positive, Atom: rename(x.Atom)})
	}
	k := key.String()
	name, ok := b.sups[k]
	if !ok {
		name = supPrefix + strconv.Itoa(len(b.sups))
		b.sups[k] = name
		b.u.Internal[name] = ""
		b.addRule(datalog.Rule{Weight: 1, Head: datalog.Atom{Pred: name, Args: keep}, Body: slices.Clone(front)}, eval.RuleMeta{Src: -1})
	}
	return []datalog.Literal{{Kind: datalog.Positive, Atom: datalog.Atom{Pred: name, Args: keep}}, last}
}

// supPrefix starts the names of the supplementary relations
// (magicBuilder.supplementary).
const supPrefix = "\x00s\x00"

// nextSIP returns the next body literal in sideways information-passing
// order: greedily the unused positive literal with the most bound
// arguments, extensional ones first; -1 when none is left.
func (b *magicBuilder) nextSIP(body []datalog.Literal, used []bool, bound map[string]bool) int {
	best, bestN, bestEDB := -1, -1, false
	for j, l := range body {
		if used[j] || l.Kind != datalog.Positive {
			continue
		}
		n := 0
		for _, t := range l.Atom.Args {
			if isBound(t, bound) {
				n++
			}
		}
		edb := !b.adorned(l.Atom.Pred)
		if n > bestN || (n == bestN && edb && !bestEDB) {
			best, bestN, bestEDB = j, n, edb
		}
	}
	return best
}

// addMagicRule demands the adorned literal l given the bound variables: it
// adds the magic rule `weight :: magic(bound args) :- prefix` (prefix being
// the guard and the literals before l, weight the rewritten rule's) and
// returns l over its adorned predicate.
//
// Magic facts are weighted: the confidence of a magic fact bounds what any
// fact demanded through it can contribute to an answer, the product of the
// weights of the rules and of the confidences of the body facts on the way
// from the query to it. A fact of confidence c demanded with magic
// confidence m contributes at most m * c to an answer, so a demand whose
// confidence is below Options.Min is dropped like any derivation below it:
// for every node N of a derivation of an answer of confidence a,
// m(N) * conf(N) >= a (by induction from the query, whose magic confidence
// is 1), so m(N) >= a and every fact an answer at or above Min needs is
// still demanded. Without it, the demand of a mined program's hundreds of
// weak rules per head reaches nearly every pair of entities.
func (b *magicBuilder) addMagicRule(l datalog.Literal, bound map[string]bool, prefix []datalog.Literal, weight float64) datalog.Literal {
	ad, args := b.goalOf(l.Atom, bound)
	if wad, wargs, ok := b.widened(l.Atom, bound); ok {
		ad, args = wad, wargs
	}
	b.demand(l.Atom.Pred, ad)
	m := magicName(l.Atom.Pred, ad)
	b.u.Internal[m] = ""
	head, nums := b.magicAtom(m, args)
	b.addRule(datalog.Rule{Weight: weight, Head: head, Body: append(slices.Clone(prefix), nums...)},
		eval.RuleMeta{Src: -1})
	l.Atom = datalog.Atom{Pred: adornedName(l.Atom.Pred, ad), Args: l.Atom.Args, Pos: l.Atom.Pos}
	return l
}

// widened returns the goal that literal a demands with its constants left
// free, and its magic arguments, when a binds both a variable and a
// constant and that goal is one the rewrite demands anyway (b.wide); ok is
// false otherwise.
//
// A mined program has hundreds of rules per relation of the form
// `h(X, c) :- b(X, d), ...`: with X bound, the literal b(X, d) demands
// b_bb, one magic fact per value of X and constant d, while the chain
// rules of the same program demand b_bf for the same values of X. On
// FB15k-237's file, a query with one constant grew magic sets of tens of
// millions of bb pairs this way, against some hundred thousand bf values
// (TestWidenedGoals has the same shape, small). Reading b_bf(X),
// which is computed for X anyway, and keeping the tuples whose second
// argument is d gives the same facts: a goal may bind fewer arguments
// than the literal has bound, since its adorned relation then holds a
// superset of the facts the literal matches. A goal the rewrite does not
// otherwise demand keeps the constant bound (a transitive closure asked
// `path(X, target)` for bound X stays pointwise).
func (b *magicBuilder) widened(a datalog.Atom, bound map[string]bool) (string, []datalog.Term, bool) {
	if b.shared[a.Pred] {
		return "", nil, false
	}
	ad := make([]byte, len(a.Args))
	var args []datalog.Term
	vars, consts := false, false
	for i, t := range a.Args {
		switch {
		case t.Kind == datalog.Symbol || t.Kind == datalog.Number:
			consts = true
			ad[i] = 'f'
		case isBound(t, bound):
			vars = vars || t.Kind == datalog.Var
			ad[i] = 'b'
			args = append(args, t)
		default:
			ad[i] = 'f'
		}
	}
	if !vars || !consts || !b.wide[goalKey{a.Pred, string(ad)}] {
		return "", nil, false
	}
	return string(ad), args, true
}

// headVariables returns r with every expression of its head replaced by a
// fresh variable that an equality at the end of the body assigns (r itself
// when its head has none): `a(X, sum V : {w(X, V)}) :- r(X)` is `a(X, H) :-
// r(X), H = sum V : {w(X, V)}`. The magic-set rewrite then passes the
// demanded value as a variable: an expression copied into a magic rule
// would lose the variables that give it its meaning (an aggregate's group).
func headVariables(r *datalog.Rule) *datalog.Rule {
	if !slices.ContainsFunc(r.Head.Args, func(t datalog.Term) bool { return t.Kind == datalog.Compound }) {
		return r
	}
	nr := *r
	nr.Head.Args = slices.Clone(r.Head.Args)
	nr.Body = slices.Clone(r.Body)
	for i, t := range nr.Head.Args {
		if t.Kind != datalog.Compound {
			continue
		}
		v := datalog.Term{Kind: datalog.Var, Value: "\x00H" + strconv.Itoa(i), Pos: t.Pos}
		nr.Head.Args[i] = v
		nr.Body = append(nr.Body, datalog.Literal{Kind: datalog.Comparison, Op: datalog.OpEq, Left: v, Right: t, Pos: t.Pos})
	}
	return &nr
}
