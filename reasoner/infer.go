package reasoner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// checkProgram validates p against st and returns its errors (a
// datalog.Diagnostics) wrapped in ErrInvalidProgram: those of
// datalog.Validate, and every atom over a relation with base facts in st
// whose number of arguments is not an arity of those facts (such an atom
// would match nothing, or write facts beside the graph's).
func checkProgram(st store.Store, p *datalog.Program) error {
	ds := datalog.Validate(p)
	if ds.HasErrors() {
		return fmt.Errorf("%w: %w", ErrInvalidProgram, ds.Err())
	}
	rs, err := st.Relations()
	if err != nil {
		return fmt.Errorf("reasoner: relations: %w", err)
	}
	base := map[string][]int{}
	for _, r := range rs {
		if r.Base > 0 {
			base[r.Name] = append(base[r.Name], r.Arity)
		}
	}
	check := func(a *datalog.Atom) {
		as, ok := base[a.Pred]
		if !ok || slices.Contains(as, len(a.Args)) {
			return
		}
		want := make([]string, len(as))
		for i, n := range as {
			want[i] = strconv.Itoa(n)
		}
		ds = append(ds, datalog.Diagnostic{Pos: a.Pos, Severity: datalog.Error,
			Msg: fmt.Sprintf("%s has arity %s in the store (its base facts), used here with %d argument%s",
				datalog.QuoteName(a.Pred), strings.Join(want, " and "), len(a.Args), plural(len(a.Args)))})
	}
	for i := range p.Facts {
		check(&p.Facts[i].Atom)
	}
	for i := range p.Rules {
		r := &p.Rules[i]
		check(&r.Head)
		for j := range r.Body {
			if r.Body[j].Kind != datalog.Comparison {
				check(&r.Body[j].Atom)
			}
		}
	}
	if ds.HasErrors() {
		ds.Sort()
		return fmt.Errorf("%w: %w", ErrInvalidProgram, ds.Err())
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Infer materialises prog over the base facts of st: it evaluates the
// program (its facts and rules, stratum by stratum, with max-product
// confidences) and replaces the store's derived facts by the result in one
// atomic call. The store's previous derived facts are not an input. Program
// facts become derived facts with their weight as confidence. Every derived
// fact carries the provenance of its best derivation (see encodeRule). On
// error or cancellation nothing is written. Program symbols the store does
// not know are interned before the write.
func Infer(ctx context.Context, st store.Store, prog *datalog.Program, opt Options) (InferStats, error) {
	start := time.Now()
	if prog == nil {
		prog = &datalog.Program{}
	}
	if err := checkProgram(st, prog); err != nil {
		return InferStats{}, err
	}
	syms, err := newSymtab(st)
	if err != nil {
		return InferStats{}, err
	}
	e := newEvaluator(ctx, st, syms, opt)
	e.prov = true
	u := plainUnit(prog)
	if err := e.load(u); err != nil {
		return InferStats{}, fmt.Errorf("reasoner: infer: %w", err)
	}
	if err := e.run(u); err != nil {
		return InferStats{}, fmt.Errorf("reasoner: infer: %w", err)
	}
	stats := InferStats{Derived: map[string]int{}, Iterations: e.iterations, Strata: e.strata}
	ds, err := e.derivedFacts(u, stats.Derived)
	if err != nil {
		return InferStats{}, fmt.Errorf("reasoner: infer: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return InferStats{}, fmt.Errorf("reasoner: infer: %w", err)
	}
	if err := st.ReplaceDerived(ctx, ds); err != nil {
		return InferStats{}, fmt.Errorf("reasoner: infer: %w", err)
	}
	stats.Facts = len(ds)
	stats.Duration = time.Since(start)
	return stats, nil
}

// derivedFacts converts the derived tuples into store facts, interning the
// local symbols and predicate names they use.
func (e *evaluator) derivedFacts(u *unit, counts map[string]int) ([]store.Derived, error) {
	remap := map[uint32]uint32{}
	sym := func(id uint32) (uint32, error) {
		if !e.syms.isLocal(id) {
			return id, nil
		}
		if x, ok := remap[id]; ok {
			return x, nil
		}
		n, err := e.syms.name(id)
		if err != nil {
			return 0, err
		}
		x, err := e.st.Intern(n)
		if err != nil {
			return 0, err
		}
		remap[id] = x
		return x, nil
	}
	relIDs := make([]uint32, len(e.rels))
	var n int
	for i, r := range e.rels {
		if r.internal {
			continue
		}
		k := 0
		for t := range int32(r.len()) {
			if p := r.provAt(t); p != provBase && p != provStored {
				k++
			}
		}
		n += k
		id, ok, err := e.st.Lookup(r.name)
		if err != nil {
			return nil, err
		}
		if !ok && k > 0 {
			if id, err = e.st.Intern(r.name); err != nil {
				return nil, err
			}
		}
		relIDs[i] = id
	}
	ds := make([]store.Derived, 0, n)
	args := make([]uint32, 0, 4*n)
	fact := func(ri int32, t int32) (store.Fact, error) {
		r := e.rels[ri]
		start := len(args)
		for _, a := range r.tuple(t) {
			x, err := sym(a)
			if err != nil {
				return store.Fact{}, err
			}
			args = append(args, x)
		}
		return store.Fact{Rel: relIDs[ri], Args: args[start:len(args):len(args)]}, nil
	}
	for ri, r := range e.rels {
		if r.internal {
			continue
		}
		for t := range int32(r.len()) {
			p := r.provAt(t)
			if p == provBase || p == provStored {
				continue
			}
			if len(ds)%4096 == 0 {
				if err := e.ctx.Err(); err != nil {
					return nil, err
				}
			}
			f, err := fact(int32(ri), t)
			if err != nil {
				return nil, err
			}
			d := store.Derived{Fact: f, Confidence: float32(r.confAt(t))}
			if p <= provFact0 {
				d.Prov.Rule = encodeRule(u.facts[provFact0-p])
			} else {
				rule := e.rules[e.pool.rule(p)]
				desc := u.descs[rule.src]
				if rule.nprov > rule.npos {
					desc.npos = rule.npos
				}
				d.Prov.Rule = encodeRule(desc)
				_, refs := e.pool.record(p, rule.nprov)
				d.Prov.Body = make([]store.Fact, 0, rule.nprov)
				for k := range rule.nprov {
					if refs[2*k] == noMatch {
						continue
					}
					f, err := fact(int32(refs[2*k]), int32(refs[2*k+1]))
					if err != nil {
						return nil, err
					}
					d.Prov.Body = append(d.Prov.Body, f)
				}
			}
			ds = append(ds, d)
			counts[r.display]++
		}
	}
	return ds, nil
}

// encodeRule is the provenance rule reference Infer stores with a derived
// fact: "file<TAB>line<TAB>col<TAB>weight<TAB>text", where text is the
// printed rule or program fact, or, for a rule with negated literals,
// "file<TAB>line<TAB>col<TAB>weight<TAB>npos<TAB>text", npos the number of
// positive body facts in the provenance (the facts after them matched
// negated literals). Printed text never holds a tab, so the two forms are
// told apart by their number of fields.
func encodeRule(d ruleDesc) string {
	s := d.pos.File + "\t" + strconv.Itoa(d.pos.Line) + "\t" + strconv.Itoa(d.pos.Col) + "\t" +
		strconv.FormatFloat(d.weight, 'g', -1, 64) + "\t"
	if d.npos >= 0 {
		s += strconv.Itoa(d.npos) + "\t"
	}
	return s + d.text
}

// decodeRule parses what encodeRule wrote.
func decodeRule(s string) (ruleDesc, error) {
	parts := strings.SplitN(s, "\t", 6)
	if len(parts) < 5 {
		return ruleDesc{}, errors.New("malformed provenance rule " + strconv.Quote(s))
	}
	npos := -1
	var err4 error
	if len(parts) == 6 {
		npos, err4 = strconv.Atoi(parts[4])
		parts[4] = parts[5]
	}
	line, err1 := strconv.Atoi(parts[1])
	col, err2 := strconv.Atoi(parts[2])
	w, err3 := strconv.ParseFloat(parts[3], 64)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return ruleDesc{}, fmt.Errorf("malformed provenance rule %q: %w", s, err)
	}
	return ruleDesc{text: parts[4], weight: w, pos: datalog.Pos{File: parts[0], Line: line, Col: col}, npos: npos}, nil
}
