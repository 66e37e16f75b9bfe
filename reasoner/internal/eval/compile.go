package eval

import (
	"github.com/drumql/drumql/internal/pkgerr"
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// Special term slots.
const (
	SlotConst    = -1 // a symbol constant (a name or a quoted string)
	slotWildcard = -2
	SlotNumber   = -3 // a number constant (unquoted), see doc.go
)

// Term is a compiled term: a variable slot, a constant or a wildcard.
type Term struct {
	V int32   // variable slot, slotConst, slotWildcard or slotNumber
	C uint32  // the constant's symbol id (a number's canonical text)
	F float64 // a number constant's value
}

// catom is a compiled atom.
type catom struct {
	Rel  int32 // index into evaluator.rels
	Args []Term
}

// clit is a compiled body literal.
type clit struct {
	Kind  datalog.LiteralKind
	Atom  catom
	op    datalog.CmpOp
	L, R  Term
	guard bool // a magic literal: filters, contributes confidence 1, no provenance
	Prov  int  // position among the provenance body refs, -1 if none
	// lx and rx are the sides of a comparison that are expressions (nil:
	// the term l or r). filter marks an equality that must not bind (the
	// stand-in for an expression argument of a positive atom, see
	// compileRule).
	lx, rx *cexpr
	filter bool
	// builtin and bargs are a built-in test (contains, match) and its
	// arguments.
	builtin string
	not     bool // the built-in test is negated
	bargs   []*cexpr
	// aggs are the aggregates of the literal's expressions, with the
	// first of their provenance words (see crule.naggw).
	aggs []aggRef
}

// aggRef is an aggregate of a literal and where the provenance record keeps
// its value: words at, at+1 (the value's symbol, 1 when it has one), at+2,
// at+3 (its confidence's bits), then its grouping variables' values.
type aggRef struct {
	x  *cexpr
	at int
}

// NoMatch is the provenance reference of a negated literal that matched no
// fact (its factor is 1).
const NoMatch = ^uint32(0)

// Crule is a compiled rule.
type Crule struct {
	Head   catom
	Body   []clit
	Weight float64
	nvars  int
	Nprov  int  // provenance refs: the positive body facts, then the negated literals
	Npos   int  // provenance refs of positive body facts (the first npos)
	Src    int  // index into the rule descriptions, -1 when none
	crisp  bool // magic rules: confidence 1
	copy   bool // bridging rules: the head inherits the body fact's provenance
	// naggw is the number of provenance words, after the 2*nprov of the
	// body facts, that record the rule's aggregates (aggRef); even.
	naggw int
	// pos and slots (variable name -> slot) name the rule in evaluation
	// errors; agg marks an aggregate's body (its plans fold solutions).
	pos   datalog.Pos
	slots map[string]int32
	agg   bool
	// fac is the path of a three-atom chain rule, evaluated factorised
	// (factor.go); nil for other rules.
	fac *facShape
	// byFanout is RuleMeta.ByFanout.
	byFanout bool
}

// RefWords is the length of the rule's provenance references.
func (r *Crule) RefWords() int { return 2*r.Nprov + r.naggw }

// RuleMeta describes how a rule of an evaluation unit is evaluated.
type RuleMeta struct {
	Src   int    // index into the unit's rule descriptions, -1 when none
	Crisp bool   // the head always gets confidence 1 (magic rules)
	Copy  bool   // the rule copies a fact (adorned bridging rules)
	Guard []bool // per body literal: a magic guard
	// ByFanout plans the rule's body by the tuples per bound key
	// (MakeGuardedPlan) in every plan of it, its delta plans too: a
	// rederive twin, whose guard binds the head's arguments.
	ByFanout bool
}

// RuleDesc is what provenance says about a rule.
type RuleDesc struct {
	text   string // canonical text, without the comment
	pos    datalog.Pos
	weight float64
	// Npos is, in a stored rule reference, the number of positive body
	// facts of the provenance (the facts after them are matches of negated
	// literals); -1 when the reference does not say (all positive).
	Npos int
}

// Unit is a program ready for evaluation: rules (possibly rewritten) with
// their metadata, the program's facts, and the predicates that are internal
// (never loaded from the store) with the name each displays as.
type Unit struct {
	Prog  *datalog.Program
	Meta  []RuleMeta // parallel to prog.Rules
	Descs []RuleDesc // rule descriptions, indexed by ruleMeta.src
	// FactSrc holds the program's facts as written (prog.Facts may hold
	// placeholders for those a query does not need), described on
	// demand (fact): a program of a million facts would spend more on
	// their descriptions than on its evaluation.
	FactSrc  []datalog.Fact
	Internal map[string]string // internal predicate -> displayed predicate ("" hidden)
	// Answer is the predicate whose relation holds the query's answers:
	// ansPred, or the query's own predicate when its arguments are distinct
	// variables (no copy of what may be millions of facts).
	Answer string
}

// WeightOf is the weight the evaluator uses. Valid programs have weights
// in (0, 1] (a zero weight is rejected by checkProgram); the 0 case only
// guards rules the reasoner builds itself.
func WeightOf(w float64) float64 {
	if w == 0 {
		return 1
	}
	return w
}

// DescribeRule returns the description of rule r that provenance records.
func DescribeRule(r *datalog.Rule) RuleDesc {
	c := *r
	c.Comment = ""
	return RuleDesc{text: c.String(), pos: r.Pos, weight: WeightOf(r.Weight), Npos: -1}
}

// DescribeFact returns the description of program fact f that provenance
// records.
func DescribeFact(f *datalog.Fact) RuleDesc {
	return RuleDesc{text: f.String(), pos: f.Pos, weight: WeightOf(f.Weight), Npos: -1}
}

// PlainUnit wraps a user program: every rule as written.
func PlainUnit(p *datalog.Program) *Unit {
	u := &Unit{Prog: p, Internal: map[string]string{}}
	for i := range p.Rules {
		u.Meta = append(u.Meta, RuleMeta{Src: i})
		u.Descs = append(u.Descs, DescribeRule(&p.Rules[i]))
	}
	u.FactSrc = p.Facts
	return u
}

// Fact describes program fact k.
func (u *Unit) Fact(k int) RuleDesc { return DescribeFact(&u.FactSrc[k]) }

// RelKey is the key of relation pred of the given arity: "pred/arity".
func RelKey(pred string, arity int) string { return pred + "/" + strconv.Itoa(arity) }

// CompileRule compiles rule i of the unit.
//
// Expressions are compiled into the literals that evaluate them: an
// expression in the head becomes a fresh variable assigned at the end of
// the body; an expression argument of a body atom becomes a fresh variable
// and an equality with it (a filter after a positive atom: like a number
// constant, it matches every symbol equal to it as a number; an assignment
// before a negated one). Aggregates are compiled into rules of their own
// (cagg), over the same variable slots.
func (e *Evaluator) CompileRule(u *Unit, i int) (*Crule, error) {
	r := &u.Prog.Rules[i]
	m := u.Meta[i]
	cr := &Crule{Weight: WeightOf(r.Weight), Src: m.Src, crisp: m.Crisp, copy: m.Copy, pos: r.Pos, byFanout: m.ByFanout}
	c := &ruleCompiler{e: e, vars: map[string]int32{}, rule: r}
	if r.HasCompound() {
		c.counts = map[string]int{}
		for _, t := range r.Head.Args {
			t.Vars(c.countVar)
		}
		for j := range r.Body {
			r.Body[j].Vars(c.countVar)
		}
	}
	var err error
	for j, l := range r.Body {
		guard := m.Guard != nil && m.Guard[j]
		if cr.Body, err = c.literal(l, guard, cr.Body); err != nil {
			return nil, err
		}
	}
	// Provenance: the positive body facts, then the negated literals (see
	// join.go), then the aggregates' words.
	for j := range cr.Body {
		if cl := &cr.Body[j]; cl.Kind == datalog.Positive && !cl.guard {
			cl.Prov = cr.Nprov
			cr.Nprov++
		}
	}
	cr.Npos = cr.Nprov
	for j := range cr.Body {
		if cl := &cr.Body[j]; cl.Kind == datalog.Negated {
			cl.Prov = cr.Nprov
			cr.Nprov++
		}
	}
	// The head: an expression argument is a fresh variable assigned last.
	cr.Head = catom{Rel: e.relation(r.Head.Pred, len(r.Head.Args)), Args: make([]Term, len(r.Head.Args))}
	for j, t := range r.Head.Args {
		if t.Kind == datalog.Compound {
			x, err := c.expr(t)
			if err != nil {
				return nil, err
			}
			v := c.fresh()
			cr.Head.Args[j] = Term{V: v}
			cr.Body = append(cr.Body, clit{Kind: datalog.Comparison, op: datalog.OpEq, L: Term{V: v}, rx: x, Prov: -1})
			continue
		}
		if cr.Head.Args[j], err = c.termOf(t); err != nil {
			return nil, err
		}
		if cr.Head.Args[j].V == slotWildcard {
			return nil, pkgerr.Newf("reasoner: %s: anonymous variable in the head of %s", r.Pos, r.Head)
		}
	}
	words := 0
	for j := range cr.Body {
		cl := &cr.Body[j]
		for _, x := range append([]*cexpr{cl.lx, cl.rx}, cl.bargs...) {
			x.aggregates(func(a *cagg) {
				cl.aggs = append(cl.aggs, aggRef{x: a.expr, at: 2*cr.Nprov + words})
				words += 4 + len(a.group)
			})
		}
	}
	cr.naggw = words + words%2
	cr.nvars = int(c.nslots)
	cr.slots = c.vars
	for _, a := range c.aggs {
		a.rule.nvars = cr.nvars
		a.rule.slots = c.vars
		a.rule.pos = r.Pos
	}
	if cr.copy && (cr.Nprov != 1 || cr.Npos != 1) {
		panic("reasoner: a copy rule needs exactly one provenance literal")
	}
	cr.fac = chainShapeOf(cr)
	return cr, nil
}

// ruleCompiler compiles one rule: its variables' slots and its aggregates.
type ruleCompiler struct {
	e      *Evaluator
	rule   *datalog.Rule
	vars   map[string]int32
	nslots int32
	counts map[string]int // occurrences of each variable in the rule
	aggs   []*cagg
}

func (c *ruleCompiler) countVar(t datalog.Term) { c.counts[t.Value]++ }

// fresh returns a new variable slot that no name uses.
func (c *ruleCompiler) fresh() int32 {
	c.nslots++
	return c.nslots - 1
}

func (c *ruleCompiler) slot(name string) int32 {
	v, ok := c.vars[name]
	if !ok {
		v = c.fresh()
		c.vars[strings.Clone(name)] = v // kept with the rule: not the bytes of its text
	}
	return v
}

// termOf compiles a variable or a constant.
func (c *ruleCompiler) termOf(t datalog.Term) (Term, error) {
	switch {
	case t.Kind == datalog.Var && t.Value == "_":
		return Term{V: slotWildcard}, nil
	case t.Kind == datalog.Var:
		return Term{V: c.slot(t.Value)}, nil
	case t.Kind == datalog.Number:
		id, err := c.e.Syms.Id(t.Value)
		if err != nil {
			return Term{}, err
		}
		f, ok := NumberValue(t.Value)
		if !ok {
			return Term{}, pkgerr.Newf("reasoner: %s: malformed number %s", t.Pos, t.Value)
		}
		return Term{V: SlotNumber, C: id, F: f}, nil
	case t.Kind == datalog.Compound:
		return Term{}, pkgerr.Newf("reasoner: %s: unexpected expression %s", t.Pos, t)
	default:
		id, err := c.e.Syms.Id(t.Value)
		if err != nil {
			return Term{}, err
		}
		return Term{V: SlotConst, C: id}, nil
	}
}

func (c *ruleCompiler) expr(t datalog.Term) (*cexpr, error) {
	return compileExpr(t, c.termOf, c.aggregate)
}

// aggregate compiles aggregate term t: its grouping variables are those
// that occur in the rule outside it.
func (c *ruleCompiler) aggregate(t datalog.Term) (*cagg, error) {
	inside := map[string]int{}
	t.Vars(func(v datalog.Term) { inside[v.Value]++ })
	a := &cagg{op: t.X.Op, rule: &Crule{Weight: 1, Src: -1, agg: true}}
	var names []string
	for n, k := range inside {
		if n != "_" && c.counts[n] > k {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		a.group = append(a.group, c.slot(n))
	}
	var err error
	for _, l := range t.X.Body {
		if a.rule.Body, err = c.literal(l, false, a.rule.Body); err != nil {
			return nil, err
		}
	}
	if len(t.X.Args) > 0 {
		if a.target, err = c.expr(t.X.Args[0]); err != nil {
			return nil, err
		}
	}
	c.aggs = append(c.aggs, a)
	return a, nil
}

// literal compiles body literal l, appending it (and the equalities of its
// expression arguments) to body.
func (c *ruleCompiler) literal(l datalog.Literal, guard bool, body []clit) ([]clit, error) {
	cl := clit{Kind: l.Kind, op: l.Op, Prov: -1, guard: guard}
	var err error
	switch l.Kind {
	case datalog.Comparison:
		if l.Left.Kind == datalog.Compound {
			cl.lx, err = c.expr(l.Left)
		} else {
			cl.L, err = c.termOf(l.Left)
		}
		if err != nil {
			return nil, err
		}
		if l.Right.Kind == datalog.Compound {
			cl.rx, err = c.expr(l.Right)
		} else {
			cl.R, err = c.termOf(l.Right)
		}
		if err != nil {
			return nil, err
		}
		return append(body, cl), nil
	case datalog.Builtin:
		cl.builtin, cl.not = l.Atom.Pred, l.Not
		for _, t := range l.Atom.Args {
			x, err := c.expr(t)
			if err != nil {
				return nil, err
			}
			cl.bargs = append(cl.bargs, x)
		}
		return append(body, cl), nil
	}
	a := l.Atom
	cl.Atom = catom{Rel: c.e.relation(a.Pred, len(a.Args)), Args: make([]Term, len(a.Args))}
	var extra []clit
	for j, t := range a.Args {
		if t.Kind != datalog.Compound {
			if cl.Atom.Args[j], err = c.termOf(t); err != nil {
				return nil, err
			}
			continue
		}
		x, err := c.expr(t)
		if err != nil {
			return nil, err
		}
		v := c.fresh()
		cl.Atom.Args[j] = Term{V: v}
		extra = append(extra, clit{Kind: datalog.Comparison, op: datalog.OpEq, L: Term{V: v}, rx: x, Prov: -1,
			filter: l.Kind == datalog.Positive})
	}
	if l.Kind == datalog.Negated {
		body = append(body, extra...) // assigned before the negation
		return append(body, cl), nil
	}
	body = append(body, cl)
	return append(body, extra...), nil
}
