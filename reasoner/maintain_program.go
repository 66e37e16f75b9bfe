package reasoner

import (
	"encoding/binary"
	"slices"

	"github.com/drumql/drumql/datalog"
)

// addRule appends rule r and its rederive twin to the unit (not compiled)
// and returns the rule's compiled index.
func (m *Materialisation) addRule(r *datalog.Rule) int {
	u := m.u
	ci := len(u.prog.Rules)
	src := len(u.descs)
	u.descs = append(u.descs, describeRule(r))
	u.prog.Rules = append(u.prog.Rules, *r)
	u.meta = append(u.meta, ruleMeta{src: src})
	gname := guardPrefix + r.Head.Pred
	u.internal[gname] = ""
	guard := datalog.Literal{Kind: datalog.Positive, Atom: datalog.Atom{Pred: gname, Args: r.Head.Args, Pos: r.Head.Pos}}
	tw := *r
	tw.Body = append([]datalog.Literal{guard}, r.Body...)
	g := make([]bool, len(tw.Body))
	g[0] = true
	u.prog.Rules = append(u.prog.Rules, tw)
	u.meta = append(u.meta, ruleMeta{src: src, guard: g})
	m.main = append(m.main, ci, ci)
	m.keys = append(m.keys, ruleKey(r), "")
	m.twin = append(m.twin, ci+1, -1)
	m.current = append(m.current, true, false)
	m.active = append(m.active, false, false)
	return ci
}

// compileNew compiles the rules of the unit from e.rules' length on and
// loads the store relations they introduce.
func (m *Materialisation) compileNew() error {
	e := m.e
	for i := len(e.rules); i < len(m.u.prog.Rules); i++ {
		cr, err := e.compileRule(m.u, i)
		if err != nil {
			return err
		}
		e.rules = append(e.rules, cr)
	}
	return m.loadNew()
}

// loadNew reads from the store the relations created since the last load.
func (m *Materialisation) loadNew() error {
	e := m.e
	for ri, r := range e.rels {
		if m.loaded[int32(ri)] {
			continue
		}
		if _, ok := m.u.internal[r.name]; ok {
			r.internal, r.display = true, m.u.internal[r.name]
			continue
		}
		m.loaded[int32(ri)] = true
		if r.len() > 0 {
			continue
		}
		if err := e.loadStore(r); err != nil {
			return err
		}
	}
	return nil
}

// factKey is the key of relation ri's tuple t in Materialisation.facts.
func factKey(ri int32, t []uint32) string {
	b := binary.LittleEndian.AppendUint32(nil, uint32(ri))
	for _, a := range t {
		b = binary.LittleEndian.AppendUint32(b, a)
	}
	return string(b)
}

// indexFacts fills m.facts from the program's facts (those the threshold
// keeps; the first of the strongest for an atom given twice).
func (m *Materialisation) indexFacts() error {
	e := m.e
	m.facts = map[string]factSrc{}
	for i := range m.u.prog.Facts {
		ri, t, c, err := e.programFact(&m.u.prog.Facts[i])
		if err != nil {
			return err
		}
		if t == nil {
			continue
		}
		k := factKey(ri, t)
		if old, ok := m.facts[k]; !ok || c > old.w {
			m.facts[k] = factSrc{w: c, idx: i, ri: ri, t: t}
		}
	}
	return nil
}

// computeActive marks the rules to evaluate (rules of the program whose
// weight reaches the threshold and whose positive body literals all read
// relations with facts or derived by such rules), builds the strata over
// them and returns the rules that became active and those that stopped
// being.
func (m *Materialisation) computeActive() (on, off []int) {
	e := m.e
	live := make([]bool, len(e.rels))
	for i, r := range e.rels {
		live[i] = r.alive > 0
	}
	act := make([]bool, len(e.rules))
	for changed := true; changed; {
		changed = false
		for _, ci := range m.ruleOf {
			r := e.rules[ci]
			if act[ci] || r.weight < e.min {
				continue
			}
			ok := true
			for j := range r.body {
				if l := &r.body[j]; l.kind == datalog.Positive && !live[l.atom.rel] {
					ok = false
					break
				}
			}
			if ok {
				act[ci], changed = true, true
				live[r.head.rel] = true
			}
		}
	}
	for ci := range act {
		switch {
		case act[ci] && !m.active[ci]:
			on = append(on, ci)
		case !act[ci] && m.active[ci] && m.current[ci]:
			off = append(off, ci)
		}
	}
	m.active = act
	ap := &datalog.Program{}
	var idx []int
	for _, ci := range m.ruleOf {
		if act[ci] {
			ap.Rules = append(ap.Rules, m.u.prog.Rules[ci])
			idx = append(idx, ci)
		}
	}
	strata, _ := datalog.Stratify(ap) // checkProgram validated the program
	m.strata = m.strata[:0]
	for _, s := range strata {
		rs := make([]int, len(s.Rules))
		for i, k := range s.Rules {
			rs[i] = idx[k]
		}
		m.strata = append(m.strata, datalog.Stratum{Preds: s.Preds, Rules: rs, Recursive: s.Recursive})
	}
	return on, off
}

// ruleKey is a rule without its weight, comment and position: rules of
// two versions of a program with the same key are the same rule.
func ruleKey(r *datalog.Rule) string {
	c := *r
	c.Weight, c.Comment, c.Pos = 1, "", datalog.Pos{}
	return c.String()
}

// setProgram makes prog the program: rules are matched with the compiled
// ones by ruleKey (in order, for a rule given twice), new ones compiled.
// It returns the rules whose facts must be derived again (removed or
// weakened) and the rules to evaluate whole (added or strengthened); the
// program's facts are applied at once.
func (m *Materialisation) setProgram(prog *datalog.Program, keys []string) (kill, add []int, err error) {
	e := m.e
	m.record = nil
	old := map[string][]int{}
	for _, ci := range m.ruleOf {
		k := m.keys[ci]
		old[k] = append(old[k], ci)
	}
	ruleOf := make([]int, len(prog.Rules))
	n0 := len(m.u.prog.Rules)
	for i := range prog.Rules {
		r := &prog.Rules[i]
		k := keys[i]
		if cs := old[k]; len(cs) > 0 {
			ci := cs[0]
			old[k] = cs[1:]
			ruleOf[i] = ci
			w := weightOf(r.Weight)
			cr := e.rules[ci]
			switch {
			case w < cr.weight:
				kill = append(kill, ci)
			case w > cr.weight:
				add = append(add, ci)
			}
			if cur := &m.u.prog.Rules[ci]; cur.Pos == r.Pos && cur.Weight == r.Weight {
				continue // the same rule at the same place
			}
			before := ruleRefOf(m.u, cr)
			cr.weight = w
			e.rules[m.twin[ci]].weight = w
			m.u.prog.Rules[ci].Weight, m.u.prog.Rules[ci].Pos = r.Weight, r.Pos
			m.u.descs[m.u.meta[ci].src] = describeRule(r)
			if after := ruleRefOf(m.u, cr); after != before {
				m.renames[before] = after
			}
			continue
		}
		ruleOf[i] = m.addRule(r)
		add = append(add, ruleOf[i])
	}
	for _, cs := range old {
		for _, ci := range cs {
			m.current[ci] = false
			kill = append(kill, ci)
		}
	}
	slices.Sort(kill)
	if len(m.u.prog.Rules) > n0 {
		if err := m.compileNew(); err != nil {
			return nil, nil, err
		}
	}
	m.ruleOf = ruleOf
	m.prog = prog
	if err := m.setFacts(prog); err != nil {
		return nil, nil, err
	}
	return kill, add, nil
}

// setFacts makes prog's facts the program's facts: atoms whose strongest
// fact weakened or went lose it (down to what else holds them), atoms whose
// fact is new or stronger rise, and tuples that keep their fact point at
// its new position.
func (m *Materialisation) setFacts(prog *datalog.Program) error {
	e := m.e
	oldFacts := m.facts
	oldSrc := m.u.factSrc
	m.u.prog.Facts = prog.Facts
	m.u.factSrc = prog.Facts
	if err := m.indexFacts(); err != nil {
		return err
	}
	if err := m.loadNew(); err != nil {
		return err
	}
	keys := make([]string, 0, len(oldFacts))
	for k := range oldFacts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		of := oldFacts[k]
		r := e.rels[of.ri]
		t := r.find(of.t)
		if t < 0 || r.provAt(t) != int32(provFact0-of.idx) {
			continue // a rule or a base fact gives it more
		}
		nf, ok := m.facts[k]
		switch {
		case !ok || nf.w < of.w:
			m.remove(of.ri, t)
		case nf.w == of.w:
			// The same fact, perhaps elsewhere: the stored proofs are
			// renamed, not rewritten.
			r.set(t, nf.w, int32(provFact0-nf.idx))
			if a, b := encodeRule(describeFact(&oldSrc[of.idx])), encodeRule(m.u.fact(nf.idx)); a != b {
				m.renames[a] = b
			}
		}
	}
	keys = keys[:0]
	for k := range m.facts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		nf := m.facts[k]
		if of, ok := oldFacts[k]; ok && of.w >= nf.w {
			continue
		}
		m.raise(nf.ri, nf.t, nf.w, int32(provFact0-nf.idx))
	}
	return nil
}
