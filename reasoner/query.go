package reasoner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// Query answers q over the store's base and derived facts and what prog
// derives from them (prog may be nil). The store's derived facts count as
// facts with their stored confidences. Answers bind the query's distinct
// variables in order of first appearance and are sorted by confidence,
// descending, then by values; a ground query has at most one answer, with
// no values. With Options.Explain every answer carries its best proof.
//
// A query with a constant over a predicate defined by rules is evaluated
// goal-directed, with magic sets: only the facts relevant to the constants
// are derived. Predicates that the relevant rules use under negation are
// evaluated in full (with everything they depend on), so that negation
// stays stratified. When the rewrite would compute every relation it
// rewrites in full anyway (it demands each with no argument bound, as the
// rules with constants of mined files do), the query is evaluated bottom-up
// over the strata it depends on and filtered instead; the choice depends on
// the program and the query only (see the package documentation). A predicate neither in the store nor defined by prog is
// an error wrapping ErrUnknownPredicate that suggests the nearest names.
func Query(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, opt Options) ([]Answer, error) {
	if prog == nil {
		prog = &datalog.Program{}
	}
	opt = opt.withProgram(prog)
	if err := checkProgram(st, prog); err != nil {
		return nil, err
	}
	syms, err := newSymtab(st)
	if err != nil {
		return nil, err
	}
	if err := checkQuery(st, prog, q); undefined(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if len(prog.Rules) == 0 && len(prog.Facts) == 0 {
		return storeAnswers(ctx, st, syms, q, opt)
	}
	return evalQuery(ctx, st, syms, prog, q, opt, nil)
}

// Count returns the number of answers Query would return, without
// building them (no names, no sorting: on millions of answers that is most
// of the work).
func Count(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, opt Options) (int, error) {
	if prog == nil {
		prog = &datalog.Program{}
	}
	opt = opt.withProgram(prog)
	if err := checkProgram(st, prog); err != nil {
		return 0, err
	}
	syms, err := newSymtab(st)
	if err != nil {
		return 0, err
	}
	if err := checkQuery(st, prog, q); undefined(err) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	if len(prog.Rules) == 0 && len(prog.Facts) == 0 {
		return countStoreAnswers(ctx, st, syms, q, opt)
	}
	opt.Explain = false
	_, r, err := runQuery(ctx, st, syms, prog, q, opt, nil)
	if err != nil || r == nil {
		return 0, err
	}
	return r.len(), nil
}

// checkQuery reports an unknown predicate or a wrong arity.
func checkQuery(st store.Store, prog *datalog.Program, q datalog.Atom) error {
	c, err := NewQueryChecker(st, prog)
	if err != nil {
		return err
	}
	return c.Check(q)
}

// QueryChecker checks queries as CheckQuery does, against the relations
// of a store and the predicates of a program as they were when it was
// made: a server checks every query against the same program, of up to a
// hundred thousand rules, and makes a new one when either changes.
type QueryChecker struct {
	arities map[string][]int
	names   []string
}

// NewQueryChecker returns the checker of queries over st and prog (which
// may be nil).
func NewQueryChecker(st store.Store, prog *datalog.Program) (*QueryChecker, error) {
	rs, err := st.Relations()
	if err != nil {
		return nil, errorf("reasoner: relations: %w", err)
	}
	arities := map[string][]int{}
	for _, r := range rs {
		arities[r.Name] = append(arities[r.Name], r.Arity)
	}
	if prog != nil {
		for i := range prog.Rules {
			h := &prog.Rules[i].Head
			arities[h.Pred] = append(arities[h.Pred], len(h.Args))
		}
		for i := range prog.Facts {
			a := &prog.Facts[i].Atom
			arities[a.Pred] = append(arities[a.Pred], len(a.Args))
		}
	}
	names := make([]string, 0, len(arities))
	for n := range arities {
		names = append(names, n)
	}
	slices.Sort(names)
	return &QueryChecker{arities: arities, names: names}, nil
}

// Check returns nil when q can be asked, and otherwise an error wrapping
// ErrUnknownPredicate and a [datalog.Diagnostics] at q (see CheckQuery).
// Safe for concurrent use.
func (c *QueryChecker) Check(q datalog.Atom) error {
	known := func(pred string) (int, bool) {
		as, ok := c.arities[pred]
		if !ok {
			return 0, false
		}
		if slices.Contains(as, len(q.Args)) {
			return len(q.Args), true
		}
		return as[0], true
	}
	if err := datalog.CheckQuery(datalog.Query{Atom: q, Pos: q.Pos}, known, c.names...); err != nil {
		if ds, ok := err.(datalog.Diagnostics); ok && !ds.HasErrors() {
			return fmt.Errorf("%w: %w", ErrUndefinedPredicate, err)
		}
		return fmt.Errorf("%w: %w", ErrUnknownPredicate, err)
	}
	return nil
}

// undefined reports whether err says that the query's predicate is
// undefined: its answer is empty.
func undefined(err error) bool { return errors.Is(err, ErrUndefinedPredicate) }

// answerMaker builds the answers of a query from the symbol ids of their
// facts' arguments: fresh Values and Fact.Args for every answer, or, with
// reuse (QueryFunc's answers), in buffers shared from one answer to the
// next, so that streaming millions of answers allocates nothing per answer
// and leaves the collector nothing to do.
type answerMaker struct {
	syms  *symtab
	q     datalog.Atom
	first []bool // the argument is the first occurrence of a named variable
	reuse bool
	vals  []string
	terms []datalog.Term
}

func newAnswerMaker(syms *symtab, q datalog.Atom, reuse bool) *answerMaker {
	m := &answerMaker{syms: syms, q: q, first: make([]bool, len(q.Args)), reuse: reuse}
	var seen []string
	for i, t := range q.Args {
		if t.Kind == datalog.Var && t.Value != "_" && !slices.Contains(seen, t.Value) {
			seen = append(seen, t.Value)
			m.first[i] = true
		}
	}
	m.vals = make([]string, 0, len(seen))
	m.terms = make([]datalog.Term, len(q.Args))
	return m
}

// answer returns the answer whose fact has the arguments args; ^0 is an
// anonymous argument, printed `_`. Without reuse, the answer's slices are
// its own.
func (m *answerMaker) answer(args []uint32, conf float64) (Answer, error) {
	vals, terms := m.vals[:0], m.terms
	if !m.reuse {
		vals, terms = make([]string, 0, cap(m.vals)), make([]datalog.Term, len(args))
	}
	for i, id := range args {
		if id == ^uint32(0) {
			terms[i] = datalog.Term{Kind: datalog.Var, Value: "_"}
			continue
		}
		name, err := m.syms.name(id)
		if err != nil {
			return Answer{}, err
		}
		terms[i] = symTerm(name)
		if m.first[i] {
			vals = append(vals, name)
		}
	}
	if len(vals) == 0 {
		vals = nil // a ground query: no values
	}
	return Answer{Values: vals, Confidence: conf, Fact: datalog.Atom{Pred: m.q.Pred, Args: terms}}, nil
}

func symTerm(name string) datalog.Term {
	if c, ok := datalog.CanonicalNumber(name); ok && c == name {
		return datalog.Term{Kind: datalog.Number, Value: name}
	}
	return datalog.Term{Kind: datalog.Symbol, Value: name}
}

// runQuery evaluates q over prog with the one evaluator and returns the
// evaluator and the answer relation (nil when nothing answers).
func runQuery(ctx context.Context, st store.Store, syms *symtab, prog *datalog.Program, q datalog.Atom, opt Options,
	shared func(string, int) *relation) (*evaluator, *relation, error) {
	setup := func(e *evaluator) {
		e.stored = true
		e.prov = opt.Explain
		e.shared = shared
	}
	e := newEvaluator(ctx, st, syms, opt)
	setup(e)
	var err error
	if shared == nil {
		// An Engine's program had its dead rules marked once (Prepare);
		// its relations are not all in the store.
		if prog, _, err = withoutDeadRules(st, prog, !opt.BaseOnly); err != nil {
			return nil, nil, err
		}
	}
	strong := withoutWeakRules(prog, e.min)
	weak := 0
	if len(strong.Rules) < len(prog.Rules) {
		rel := closure(prog, defines(prog), q.Pred)
		for i := range prog.Rules {
			if r := &prog.Rules[i]; rel[r.Head.Pred] && weightOf(r.Weight) < e.min {
				weak++
			}
		}
	}
	var (
		u    *unit
		mode queryMode
	)
	if !opt.noMagic && !opt.noRace && goalDirected(strong, q) && boundQuery(q) {
		gd := func() *unit { return raceUnit(strong, q) }
		e, u, mode, err = raceQuery(ctx, st, syms, gd, plainUnitOf(strong, q), opt, setup)
	} else {
		u, mode = queryUnit(strong, q, !opt.noMagic)
		e.unit = u
		err = e.load(u)
		if err == nil {
			err = e.run(u)
		}
	}
	e.weakRules = weak
	e.reportStats(opt.Stats)
	if w := opt.work; w != nil {
		w.evaluations.Add(1)
		w.derived.Add(int64(e.derived))
		w.joins.Add(e.work)
		w.reads.Add(e.reads)
		w.modes[mode].Add(1)
	}
	if err != nil {
		return nil, nil, errorf("reasoner: query %s: %w", q, err)
	}
	ri, ok := e.relIdx[relKey(u.answer, len(queryVars(q)))]
	if !ok {
		return e, nil, nil
	}
	return e, e.rels[ri], nil
}

// withoutWeakRules returns prog without its rules of weight below min (all
// of prog when it has none). A derivation's confidence is at most its
// rule's weight, body confidences being at most 1, so such a rule derives
// nothing an evaluation keeps; but it costs a scan of its first body
// literal each round and, in a goal-directed rewrite, it still spreads
// demand, since magic facts are crisp. Mined files hold many such rules
// through hub relations (born_in(A, C), born_in(B, C) at weight .005),
// whose demand reaches most of the graph from one constant.
func withoutWeakRules(prog *datalog.Program, min float64) *datalog.Program {
	weak := func(r datalog.Rule) bool { return weightOf(r.Weight) < min }
	if !slices.ContainsFunc(prog.Rules, weak) {
		return prog
	}
	p := *prog
	p.Rules = slices.DeleteFunc(slices.Clone(prog.Rules), weak)
	return &p
}

// evalQuery evaluates q over prog with the one evaluator.
func evalQuery(ctx context.Context, st store.Store, syms *symtab, prog *datalog.Program, q datalog.Atom, opt Options,
	shared func(string, int) *relation) ([]Answer, error) {
	e, r, err := runQuery(ctx, st, syms, prog, q, opt, shared)
	if err != nil || r == nil {
		return nil, err
	}
	answers := make([]Answer, 0, r.len())
	err = e.eachAnswer(r, q, opt.Explain, false, func(a Answer) bool {
		answers = append(answers, a)
		return true
	})
	if err != nil {
		return nil, err
	}
	if err := sortAnswersCtx(ctx, answers); err != nil {
		return nil, errorf("reasoner: query %s: %w", q, err)
	}
	return answers, nil
}

// QueryFunc calls yield with every answer Query would return, in no
// particular order (deterministic) and without proofs, until yield returns
// false. Nothing is sorted, collected or allocated per answer: beyond the
// evaluation itself, memory does not grow with the number of answers. The
// answer's Values and Fact.Args are reused for the next answer once yield
// returns: yield copies what it keeps. The confidences are final: they are
// read out after the fixpoint. A query without rules or
// program facts is answered from the store as its base and derived facts
// are scanned (in the order of their arguments), except that when the
// query has an anonymous argument or a number constant, whose projection
// may make several facts one answer, the answers are collected first as
// symbol ids, each with its best confidence.
func QueryFunc(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, opt Options, yield func(Answer) bool) error {
	if prog == nil {
		prog = &datalog.Program{}
	}
	opt = opt.withProgram(prog)
	if err := checkProgram(st, prog); err != nil {
		return err
	}
	syms, err := newSymtab(st)
	if err != nil {
		return err
	}
	if err := checkQuery(st, prog, q); undefined(err) {
		return nil
	} else if err != nil {
		return err
	}
	opt.Explain = false
	if len(prog.Rules) == 0 && len(prog.Facts) == 0 {
		return eachStoreAnswer(ctx, st, syms, q, opt, yield)
	}
	e, r, err := runQuery(ctx, st, syms, prog, q, opt, nil)
	if err != nil || r == nil {
		return err
	}
	return e.eachAnswer(r, q, false, true, yield)
}

// eachAnswer calls yield with the answer of every tuple of the answer
// relation r of q, with its proof when explain is set. With reuse, the
// answers share their slices (see answerMaker).
func (e *evaluator) eachAnswer(r *relation, q datalog.Atom, explain, reuse bool, yield func(Answer) bool) error {
	u := e.unit
	m := newAnswerMaker(e.syms, q, reuse)
	vars := queryVars(q)
	// Per argument: the tuple column of a variable, or -1 with the
	// constant's id (^0 for an anonymous argument) in args.
	col := make([]int, len(q.Args))
	args := make([]uint32, len(q.Args))
	for i, a := range q.Args {
		col[i] = -1
		switch {
		case a.Kind != datalog.Var:
			args[i], _ = e.syms.lookup(a.Value)
		case a.Value == "_":
			args[i] = ^uint32(0)
		default:
			col[i] = slices.IndexFunc(vars, func(v datalog.Term) bool { return v.Value == a.Value })
		}
	}
	for t := range int32(r.len()) {
		if t&0xfff == 0 {
			if err := e.ctx.Err(); err != nil {
				return errorf("reasoner: query %s: %w", q, err)
			}
		}
		tup := r.tuple(t)
		for i, k := range col {
			if k >= 0 {
				args[i] = tup[k]
			}
		}
		a, err := m.answer(args, r.confAt(t))
		if err != nil {
			return err
		}
		if explain {
			p, err := e.proof(u, r.provAt(t), a.Fact, r.confAt(t), 0)
			if err != nil {
				return err
			}
			a.Proof = p
		}
		if !yield(a) {
			return nil
		}
	}
	return nil
}

// atomOf prints tuple t of relation r.
func (e *evaluator) atomOf(r *relation, t int32) datalog.Atom {
	a := datalog.Atom{Pred: r.display, Args: make([]datalog.Term, r.arity)}
	for i, id := range r.tuple(t) {
		a.Args[i] = symTerm(e.syms.mustName(id))
	}
	return a
}

const maxProofDepth = 100_000

// proof builds the proof tree of a fact from its provenance code.
func (e *evaluator) proof(u *unit, prov int32, fact datalog.Atom, conf float64, depth int) (*Proof, error) {
	if depth > maxProofDepth {
		return nil, errorf("reasoner: proof of %s deeper than %d", fact, maxProofDepth)
	}
	p := &Proof{Fact: fact.String(), Confidence: conf, Weight: 1}
	switch {
	case prov == provBase:
		p.Base = true
	case prov == provStored:
		rel, ok := e.syms.lookup(fact.Pred)
		f := store.Fact{Rel: rel}
		for _, t := range fact.Args {
			id, ok2 := e.syms.lookup(t.Value)
			ok = ok && ok2
			f.Args = append(f.Args, id)
		}
		if !ok {
			return nil, errorf("reasoner: proof of stored %s: %w", fact, ErrNoProof)
		}
		return storeProof(e.st, e.syms, f, depth+1)
	case prov <= provFact0:
		d := u.fact(int(provFact0 - prov))
		p.Rule, p.Pos, p.Weight = d.text, d.pos, d.weight
	case prov >= 0:
		rule := e.rules[e.pool.rule(prov)]
		if rule.src >= 0 {
			d := u.descs[rule.src]
			p.Rule, p.Pos, p.Weight = d.text, d.pos, d.weight
		}
		_, refs := e.pool.record(prov, rule.nprov)
		for k := range rule.nprov {
			if refs[2*k] == noMatch {
				continue
			}
			r := e.rels[refs[2*k]]
			t := int32(refs[2*k+1])
			c, err := e.proof(u, r.provAt(t), e.atomOf(r, t), r.confAt(t), depth+1)
			if err != nil {
				return nil, err
			}
			if k >= rule.npos {
				c = negatedProof(c)
			}
			p.Children = append(p.Children, c)
		}
		if rule.naggw > 0 {
			p.Children = append(p.Children, e.aggregateProofs(rule, e.pool.words(prov, rule.refWords()))...)
		}
	default:
		p.Rule = "?"
	}
	return p, nil
}

// storeProof rebuilds a proof from the provenance stored by Infer.
func storeProof(st store.Store, syms *symtab, f store.Fact, depth int) (*Proof, error) {
	if depth > maxProofDepth {
		return nil, errorf("reasoner: stored proof deeper than %d", maxProofDepth)
	}
	pred, err := syms.name(f.Rel)
	if err != nil {
		return nil, err
	}
	a := datalog.Atom{Pred: pred}
	for _, id := range f.Args {
		n, err := syms.name(id)
		if err != nil {
			return nil, err
		}
		a.Args = append(a.Args, symTerm(n))
	}
	base, err := st.Has(f)
	if err != nil {
		return nil, errorf("reasoner: explain %s: %w", a, err)
	}
	if base {
		return &Proof{Fact: a.String(), Confidence: 1, Weight: 1, Base: true}, nil
	}
	d, ok, err := st.GetDerived(f)
	if err != nil {
		return nil, errorf("reasoner: explain %s: %w", a, err)
	}
	if !ok {
		return nil, errorf("reasoner: explain %s: %w", a, ErrNoProof)
	}
	desc, err := decodeRule(d.Prov.Rule)
	if err != nil {
		return nil, errorf("reasoner: explain %s: %w", a, err)
	}
	p := &Proof{Fact: a.String(), Confidence: float64(d.Confidence), Rule: desc.text, Pos: desc.pos, Weight: desc.weight}
	for k, b := range d.Prov.Body {
		c, err := storeProof(st, syms, b, depth+1)
		if err != nil {
			return nil, err
		}
		if desc.npos >= 0 && k >= desc.npos {
			c = negatedProof(c)
		}
		p.Children = append(p.Children, c)
	}
	return p, nil
}

// negatedProof is the node of a negated literal whose best match has proof
// c: the factor 1 - c's confidence, over c.
func negatedProof(c *Proof) *Proof {
	return &Proof{Fact: "not " + c.Fact, Confidence: 1 - c.Confidence, Weight: 1, Negated: true, Children: []*Proof{c}}
}

// Explain returns the best proof of the ground atom fact: over prog (which
// may be nil) and the store as Query sees them, or, when prog has neither
// rules nor facts, from the provenance Infer stored. A fact that does not
// hold is an error wrapping ErrNoProof.
func Explain(ctx context.Context, st store.Store, prog *datalog.Program, fact datalog.Atom, opt Options) (*Proof, error) {
	for _, t := range fact.Args {
		if t.Kind == datalog.Var {
			return nil, errorf("reasoner: explain %s: %w", fact, ErrNotGround)
		}
	}
	opt.Explain = true
	as, err := Query(ctx, st, prog, fact, opt)
	if err != nil {
		return nil, err
	}
	if len(as) == 0 {
		return nil, errorf("reasoner: explain %s: %w", fact, ErrNoProof)
	}
	return as[0].Proof, nil
}

// String prints the proof as an indented tree, one fact a line.
func (p *Proof) String() string {
	var b strings.Builder
	p.write(&b, 0)
	return b.String()
}

func (p *Proof) write(b *strings.Builder, depth int) {
	b.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(b, "%s  [%.4g]", p.Fact, p.Confidence)
	switch {
	case p.Base:
		b.WriteString("  base fact")
	case p.Rule != "":
		fmt.Fprintf(b, "  by %s (%s)", p.Rule, p.Pos)
	}
	b.WriteByte('\n')
	for _, c := range p.Children {
		c.write(b, depth+1)
	}
}
