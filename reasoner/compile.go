package reasoner

import (
	"strconv"

	"github.com/drumql/drumql/datalog"
)

// Special term slots.
const (
	slotConst    = -1 // a symbol constant (a name or a quoted string)
	slotWildcard = -2
	slotNumber   = -3 // a number constant (unquoted), see doc.go
)

// term is a compiled term: a variable slot, a constant or a wildcard.
type term struct {
	v int32   // variable slot, slotConst, slotWildcard or slotNumber
	c uint32  // the constant's symbol id (a number's canonical text)
	f float64 // a number constant's value
}

// catom is a compiled atom.
type catom struct {
	rel  int32 // index into evaluator.rels
	args []term
}

// clit is a compiled body literal.
type clit struct {
	kind  datalog.LiteralKind
	atom  catom
	op    datalog.CmpOp
	l, r  term
	guard bool // a magic literal: filters, contributes confidence 1, no provenance
	prov  int  // position among the provenance body refs, -1 if none
}

// noMatch is the provenance reference of a negated literal that matched no
// fact (its factor is 1).
const noMatch = ^uint32(0)

// crule is a compiled rule.
type crule struct {
	head   catom
	body   []clit
	weight float64
	nvars  int
	nprov  int  // provenance refs: the positive body facts, then the negated literals
	npos   int  // provenance refs of positive body facts (the first npos)
	src    int  // index into the rule descriptions, -1 when none
	crisp  bool // magic rules: confidence 1
	copy   bool // bridging rules: the head inherits the body fact's provenance
}

// ruleMeta describes how a rule of an evaluation unit is evaluated.
type ruleMeta struct {
	src   int    // index into the unit's rule descriptions, -1 when none
	crisp bool   // the head always gets confidence 1 (magic rules)
	copy  bool   // the rule copies a fact (adorned bridging rules)
	guard []bool // per body literal: a magic guard
}

// ruleDesc is what provenance says about a rule.
type ruleDesc struct {
	text   string // canonical text, without the comment
	pos    datalog.Pos
	weight float64
	// npos is, in a stored rule reference, the number of positive body
	// facts of the provenance (the facts after them are matches of negated
	// literals); -1 when the reference does not say (all positive).
	npos int
}

// unit is a program ready for evaluation: rules (possibly rewritten) with
// their metadata, the program's facts, and the predicates that are internal
// (never loaded from the store) with the name each displays as.
type unit struct {
	prog     *datalog.Program
	meta     []ruleMeta        // parallel to prog.Rules
	descs    []ruleDesc        // rule descriptions, indexed by ruleMeta.src
	facts    []ruleDesc        // descriptions of prog.Facts
	internal map[string]string // internal predicate -> displayed predicate ("" hidden)
	// answer is the predicate whose relation holds the query's answers:
	// ansPred, or the query's own predicate when its arguments are distinct
	// variables (no copy of what may be millions of facts).
	answer string
}

// weightOf is the weight the evaluator uses. Valid programs have weights
// in (0, 1] (a zero weight is rejected by checkProgram); the 0 case only
// guards rules the reasoner builds itself.
func weightOf(w float64) float64 {
	if w == 0 {
		return 1
	}
	return w
}

func describeRule(r *datalog.Rule) ruleDesc {
	c := *r
	c.Comment = ""
	return ruleDesc{text: c.String(), pos: r.Pos, weight: weightOf(r.Weight), npos: -1}
}

func describeFact(f *datalog.Fact) ruleDesc {
	return ruleDesc{text: f.String(), pos: f.Pos, weight: weightOf(f.Weight), npos: -1}
}

// plainUnit wraps a user program: every rule as written.
func plainUnit(p *datalog.Program) *unit {
	u := &unit{prog: p, internal: map[string]string{}}
	for i := range p.Rules {
		u.meta = append(u.meta, ruleMeta{src: i})
		u.descs = append(u.descs, describeRule(&p.Rules[i]))
	}
	for i := range p.Facts {
		u.facts = append(u.facts, describeFact(&p.Facts[i]))
	}
	return u
}

func relKey(pred string, arity int) string { return pred + "/" + strconv.Itoa(arity) }

// compileRule compiles rule i of the unit.
func (e *evaluator) compileRule(u *unit, i int) (*crule, error) {
	r := &u.prog.Rules[i]
	m := u.meta[i]
	vars := map[string]int32{}
	cr := &crule{weight: weightOf(r.Weight), src: m.src, crisp: m.crisp, copy: m.copy}
	termOf := func(t datalog.Term) (term, error) {
		switch {
		case t.Kind == datalog.Var && t.Value == "_":
			return term{v: slotWildcard}, nil
		case t.Kind == datalog.Var:
			v, ok := vars[t.Value]
			if !ok {
				v = int32(len(vars))
				vars[t.Value] = v
			}
			return term{v: v}, nil
		case t.Kind == datalog.Number:
			id, err := e.syms.id(t.Value)
			if err != nil {
				return term{}, err
			}
			f, ok := numberValue(t.Value)
			if !ok {
				return term{}, errorf("reasoner: %s: malformed number %s", t.Pos, t.Value)
			}
			return term{v: slotNumber, c: id, f: f}, nil
		default:
			id, err := e.syms.id(t.Value)
			if err != nil {
				return term{}, err
			}
			return term{v: slotConst, c: id}, nil
		}
	}
	atomOf := func(a datalog.Atom) (catom, error) {
		ca := catom{rel: e.relation(a.Pred, len(a.Args)), args: make([]term, len(a.Args))}
		for j, t := range a.Args {
			x, err := termOf(t)
			if err != nil {
				return ca, err
			}
			ca.args[j] = x
		}
		return ca, nil
	}
	var err error
	for j, l := range r.Body {
		cl := clit{kind: l.Kind, op: l.Op, prov: -1}
		if m.guard != nil {
			cl.guard = m.guard[j]
		}
		switch l.Kind {
		case datalog.Comparison:
			if cl.l, err = termOf(l.Left); err != nil {
				return nil, err
			}
			if cl.r, err = termOf(l.Right); err != nil {
				return nil, err
			}
		default:
			if cl.atom, err = atomOf(l.Atom); err != nil {
				return nil, err
			}
			if l.Kind == datalog.Positive && !cl.guard {
				cl.prov = cr.nprov
				cr.nprov++
			}
		}
		cr.body = append(cr.body, cl)
	}
	// Negated literals record the fact they matched (see join.go) after
	// the positive body facts.
	cr.npos = cr.nprov
	for j := range cr.body {
		if cl := &cr.body[j]; cl.kind == datalog.Negated {
			cl.prov = cr.nprov
			cr.nprov++
		}
	}
	if cr.head, err = atomOf(r.Head); err != nil {
		return nil, err
	}
	for _, t := range cr.head.args {
		if t.v == slotWildcard {
			return nil, errorf("reasoner: %s: anonymous variable in the head of %s", r.Pos, r.Head)
		}
	}
	cr.nvars = len(vars)
	if cr.copy && (cr.nprov != 1 || cr.npos != 1) {
		panic("reasoner: a copy rule needs exactly one provenance literal")
	}
	return cr, nil
}
