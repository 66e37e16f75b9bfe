package eval

import (
	"errors"
	"fmt"
	"github.com/drumql/drumql/internal/pkgerr"
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// CheckProgramQuery reports an unknown predicate or a wrong arity.
func CheckProgramQuery(st store.Store, prog *datalog.Program, q datalog.Atom) error {
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

// NewQueryChecker is reasoner.NewQueryChecker, documented there.
func NewQueryChecker(st store.Store, prog *datalog.Program) (*QueryChecker, error) {
	rs, err := st.Relations()
	if err != nil {
		return nil, pkgerr.Newf("reasoner: relations: %w", err)
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

// Undefined reports whether err says that the query's predicate is
// undefined: its answer is empty.
func Undefined(err error) bool { return errors.Is(err, ErrUndefinedPredicate) }

// answerMaker builds the answers of a query from the symbol ids of their
// facts' arguments: fresh Values and Fact.Args for every answer, or, with
// reuse (QueryFunc's answers), in buffers shared from one answer to the
// next, so that streaming millions of answers allocates nothing per answer
// and leaves the collector nothing to do.
type answerMaker struct {
	syms  *Symtab
	q     datalog.Atom
	first []bool // the argument is the first occurrence of a named variable
	reuse bool
	vals  []string
	terms []datalog.Term
}

// NewAnswerMaker returns the maker of q's answers from answer tuples named
// through syms; with reuse, the answers share their slices.
func NewAnswerMaker(syms *Symtab, q datalog.Atom, reuse bool) *answerMaker {
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

// Answer returns the answer whose fact has the arguments args; ^0 is an
// anonymous argument, printed `_`. Without reuse, the answer's slices are
// its own.
func (m *answerMaker) Answer(args []uint32, conf float64) (Answer, error) {
	vals, terms := m.vals[:0], m.terms
	if !m.reuse {
		vals, terms = make([]string, 0, cap(m.vals)), make([]datalog.Term, len(args))
	}
	for i, id := range args {
		if id == ^uint32(0) {
			terms[i] = datalog.Term{Kind: datalog.Var, Value: "_"}
			continue
		}
		name, err := m.syms.Name(id)
		if err != nil {
			return Answer{}, err
		}
		terms[i] = SymTerm(name)
		if m.first[i] {
			vals = append(vals, name)
		}
	}
	if len(vals) == 0 {
		vals = nil // a ground query: no values
	}
	return Answer{Values: vals, Confidence: conf, Fact: datalog.Atom{Pred: m.q.Pred, Args: terms}}, nil
}

// SymTerm is the term of the symbol named name: a number constant when
// name is a number in canonical form, else a symbol.
func SymTerm(name string) datalog.Term {
	if c, ok := datalog.CanonicalNumber(name); ok && c == name {
		return datalog.Term{Kind: datalog.Number, Value: name}
	}
	return datalog.Term{Kind: datalog.Symbol, Value: name}
}

// WithoutWeakRules returns prog without its rules of weight below min (all
// of prog when it has none). A derivation's confidence is at most its
// rule's weight, body confidences being at most 1, so such a rule derives
// nothing an evaluation keeps; but it costs a scan of its first body
// literal each round and, in a goal-directed rewrite, it still spreads
// demand, since magic facts are crisp. Mined files hold many such rules
// through hub relations (born_in(A, C), born_in(B, C) at weight .005),
// whose demand reaches most of the graph from one constant.
func WithoutWeakRules(prog *datalog.Program, min float64) *datalog.Program {
	weak := func(r datalog.Rule) bool { return WeightOf(r.Weight) < min }
	if !slices.ContainsFunc(prog.Rules, weak) {
		return prog
	}
	p := *prog
	p.Rules = slices.DeleteFunc(slices.Clone(prog.Rules), weak)
	return &p
}

// EachAnswer calls yield with the answer of every tuple of the answer
// relation r of q, with its proof when explain is set. With reuse, the
// answers share their slices (see answerMaker).
func (e *Evaluator) EachAnswer(r *Relation, q datalog.Atom, explain, reuse bool, yield func(Answer) bool) error {
	u := e.Unit
	m := NewAnswerMaker(e.Syms, q, reuse)
	vars := QueryVars(q)
	// Per argument: the tuple column of a variable, or -1 with the
	// constant's id (^0 for an anonymous argument) in args.
	col := make([]int, len(q.Args))
	args := make([]uint32, len(q.Args))
	for i, a := range q.Args {
		col[i] = -1
		switch {
		case a.Kind != datalog.Var:
			args[i], _ = e.Syms.Lookup(a.Value)
		case a.Value == "_":
			args[i] = ^uint32(0)
		default:
			col[i] = slices.IndexFunc(vars, func(v datalog.Term) bool { return v.Value == a.Value })
		}
	}
	for t := range int32(r.Len()) {
		if t&0xfff == 0 {
			if err := e.Ctx.Err(); err != nil {
				return pkgerr.Newf("reasoner: query %s: %w", q, err)
			}
		}
		tup := r.Tuple(t)
		for i, k := range col {
			if k >= 0 {
				args[i] = tup[k]
			}
		}
		a, err := m.Answer(args, r.ConfAt(t))
		if err != nil {
			return err
		}
		if explain {
			p, err := e.proof(u, r.ProvAt(t), a.Fact, r.ConfAt(t), 0)
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
func (e *Evaluator) atomOf(r *Relation, t int32) datalog.Atom {
	a := datalog.Atom{Pred: r.Display, Args: make([]datalog.Term, r.Arity)}
	for i, id := range r.Tuple(t) {
		a.Args[i] = SymTerm(e.Syms.mustName(id))
	}
	return a
}

const maxProofDepth = 100_000

// proof builds the proof tree of a fact from its provenance code.
func (e *Evaluator) proof(u *Unit, prov int32, fact datalog.Atom, conf float64, depth int) (*Proof, error) {
	if depth > maxProofDepth {
		return nil, pkgerr.Newf("reasoner: proof of %s deeper than %d", fact, maxProofDepth)
	}
	p := &Proof{Fact: fact.String(), Confidence: conf, Weight: 1}
	switch {
	case prov == ProvBase:
		p.Base = true
	case prov == ProvStored:
		rel, ok := e.Syms.Lookup(fact.Pred)
		f := store.Fact{Rel: rel}
		for _, t := range fact.Args {
			id, ok2 := e.Syms.Lookup(t.Value)
			ok = ok && ok2
			f.Args = append(f.Args, id)
		}
		if !ok {
			return nil, pkgerr.Newf("reasoner: proof of stored %s: %w", fact, ErrNoProof)
		}
		return StoreProof(e.St, e.Syms, f, depth+1)
	case prov <= ProvFact0:
		d := u.Fact(int(ProvFact0 - prov))
		p.Rule, p.Pos, p.Weight = d.text, d.pos, d.weight
	case prov >= 0:
		rule := e.Rules[e.Pool.Rule(prov)]
		if rule.Src >= 0 {
			d := u.Descs[rule.Src]
			p.Rule, p.Pos, p.Weight = d.text, d.pos, d.weight
		}
		_, refs := e.Pool.Record(prov, rule.Nprov)
		for k := range rule.Nprov {
			if refs[2*k] == NoMatch {
				continue
			}
			r := e.Rels[refs[2*k]]
			t := int32(refs[2*k+1])
			c, err := e.proof(u, r.ProvAt(t), e.atomOf(r, t), r.ConfAt(t), depth+1)
			if err != nil {
				return nil, err
			}
			if k >= rule.Npos {
				c = negatedProof(c)
			}
			p.Children = append(p.Children, c)
		}
		if rule.naggw > 0 {
			p.Children = append(p.Children, e.aggregateProofs(rule, e.Pool.Words(prov, rule.RefWords()))...)
		}
	default:
		p.Rule = "?"
	}
	return p, nil
}

// StoreProof rebuilds a proof from the provenance stored by Infer.
func StoreProof(st store.Store, syms *Symtab, f store.Fact, depth int) (*Proof, error) {
	if depth > maxProofDepth {
		return nil, pkgerr.Newf("reasoner: stored proof deeper than %d", maxProofDepth)
	}
	pred, err := syms.Name(f.Rel)
	if err != nil {
		return nil, err
	}
	a := datalog.Atom{Pred: pred}
	for _, id := range f.Args {
		n, err := syms.Name(id)
		if err != nil {
			return nil, err
		}
		a.Args = append(a.Args, SymTerm(n))
	}
	base, err := st.Has(f)
	if err != nil {
		return nil, pkgerr.Newf("reasoner: explain %s: %w", a, err)
	}
	if base {
		return &Proof{Fact: a.String(), Confidence: 1, Weight: 1, Base: true}, nil
	}
	d, ok, err := st.GetDerived(f)
	if err != nil {
		return nil, pkgerr.Newf("reasoner: explain %s: %w", a, err)
	}
	if !ok {
		return nil, pkgerr.Newf("reasoner: explain %s: %w", a, ErrNoProof)
	}
	desc, err := decodeRule(d.Prov.Rule)
	if err != nil {
		return nil, pkgerr.Newf("reasoner: explain %s: %w", a, err)
	}
	p := &Proof{Fact: a.String(), Confidence: float64(d.Confidence), Rule: desc.text, Pos: desc.pos, Weight: desc.weight}
	for k, b := range d.Prov.Body {
		c, err := StoreProof(st, syms, b, depth+1)
		if err != nil {
			return nil, err
		}
		if desc.Npos >= 0 && k >= desc.Npos {
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

// QueryVars returns the distinct named variables of a, in order of first
// appearance.
func QueryVars(a datalog.Atom) []datalog.Term {
	var vs []datalog.Term
	for _, t := range a.Args {
		if t.Kind == datalog.Var && t.Value != "_" && !slices.ContainsFunc(vs, func(u datalog.Term) bool { return u.Value == t.Value }) {
			vs = append(vs, datalog.Term{Kind: datalog.Var, Value: t.Value})
		}
	}
	return vs
}
