package maintain

import (
	"encoding/binary"
	"slices"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
)

// addRule appends rule r to the unit (not compiled) and returns its
// compiled index. Its rederive twin is made when an update first needs it
// (twinOf): most rules of a mined program never need one, and a twin of
// each was a third of the memory of a resumed materialisation.
func (m *Materialisation) addRule(r *datalog.Rule) int {
	u := m.u
	ci := len(u.Prog.Rules)
	src := len(u.Descs)
	u.Descs = append(u.Descs, eval.DescribeRule(r))
	u.Prog.Rules = append(u.Prog.Rules, *r)
	u.Meta = append(u.Meta, eval.RuleMeta{Src: src})
	m.main = append(m.main, ci)
	m.keys = append(m.keys, "") // computed when needed (keyOf)
	m.twin = append(m.twin, noTwin)
	m.current = append(m.current, true)
	m.active = append(m.active, false)
	return ci
}

// noTwin is m.twin's entry for a rule whose rederive twin is not made yet
// (m.twin holds -1 for a twin).
const noTwin = -2

// twinOf returns the index of the rederive twin of compiled rule ci,
// making and compiling it the first time: rule ci with a first literal
// over the guard relation of its head (which the update fills with the
// removed tuples), at the rule's current weight.
func (m *Materialisation) twinOf(ci int) (int, error) {
	if tw := m.twin[ci]; tw >= 0 {
		return tw, nil
	}
	u := m.u
	r := &u.Prog.Rules[ci]
	gname := guardPrefix + r.Head.Pred
	u.Internal[gname] = ""
	guard := datalog.Literal{Kind: datalog.Positive, Atom: datalog.Atom{Pred: gname, Args: r.Head.Args, Pos: r.Head.Pos}}
	tw := *r
	tw.Body = append([]datalog.Literal{guard}, r.Body...)
	g := make([]bool, len(tw.Body))
	g[0] = true
	ti := len(u.Prog.Rules)
	u.Prog.Rules = append(u.Prog.Rules, tw)
	u.Meta = append(u.Meta, eval.RuleMeta{Src: u.Meta[ci].Src, Guard: g, ByFanout: true})
	m.main = append(m.main, ci)
	m.keys = append(m.keys, "")
	m.twin = append(m.twin, -1)
	m.current = append(m.current, false)
	m.active = append(m.active, false)
	m.twin[ci] = ti
	if err := m.compileNew(); err != nil {
		return 0, err
	}
	m.e.Rules[ti].Weight = m.e.Rules[ci].Weight
	return ti, nil
}

// compileNew compiles the rules of the unit from e.rules' length on and
// loads the store relations they introduce.
func (m *Materialisation) compileNew() error {
	e := m.e
	for i := len(e.Rules); i < len(m.u.Prog.Rules); i++ {
		cr, err := e.CompileRule(m.u, i)
		if err != nil {
			return err
		}
		e.Rules = append(e.Rules, cr)
	}
	return m.loadNew()
}

// loadNew reads from the store the relations created since the last load.
func (m *Materialisation) loadNew() error {
	e := m.e
	for ri, r := range e.Rels {
		if m.loaded[int32(ri)] {
			continue
		}
		if _, ok := m.u.Internal[r.Name]; ok {
			r.Internal, r.Display = true, m.u.Internal[r.Name]
			continue
		}
		m.loaded[int32(ri)] = true
		if r.Len() > 0 {
			continue
		}
		if err := e.LoadStore(r); err != nil {
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
	for i := range m.u.Prog.Facts {
		ri, t, c, err := e.ProgramFact(&m.u.Prog.Facts[i])
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
	live := make([]bool, len(e.Rels))
	for i, r := range e.Rels {
		live[i] = r.Alive > 0
	}
	act := make([]bool, len(e.Rules))
	for changed := true; changed; {
		changed = false
		for _, ci := range m.ruleOf {
			r := e.Rules[ci]
			if act[ci] || r.Weight < e.Min {
				continue
			}
			ok := true
			for j := range r.Body {
				if l := &r.Body[j]; l.Kind == datalog.Positive && !live[l.Atom.Rel] {
					ok = false
					break
				}
			}
			if ok {
				act[ci], changed = true, true
				live[r.Head.Rel] = true
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
			ap.Rules = append(ap.Rules, m.u.Prog.Rules[ci])
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

// keyOf returns the ruleKey of compiled rule ci (not a twin), computing it
// the first time.
func (m *Materialisation) keyOf(ci int) string {
	if m.keys[ci] == "" {
		m.keys[ci] = ruleKey(&m.u.Prog.Rules[ci])
	}
	return m.keys[ci]
}

// matchRules matches the rules of prog with the program's compiled ones:
// match[i] is the compiled rule prog.Rules[i] keeps (one with the same
// ruleKey: the same rule but for its weight, comment and positions), or
// -1 for a new rule; same counts the matched rules. A rule given more than
// once is matched in order. The two programs' common prefix and suffix are
// matched rule by rule, by their parts (sameRule), and only the rules
// between them by their keys: an edit of a mined file of a hundred
// thousand rules changes a few of them, and printing every rule for its
// key was most of what such an update cost.
func (m *Materialisation) matchRules(prog *datalog.Program) (match []int, same int) {
	old := m.ruleOf
	n, k := len(prog.Rules), len(old)
	match = make([]int, n)
	p := 0
	for p < n && p < k && sameRule(&prog.Rules[p], &m.u.Prog.Rules[old[p]]) {
		match[p] = old[p]
		p++
	}
	q := 0 // the common suffix's length
	for q < n-p && q < k-p && sameRule(&prog.Rules[n-1-q], &m.u.Prog.Rules[old[k-1-q]]) {
		match[n-1-q] = old[k-1-q]
		q++
	}
	same = p + q
	if p+q == n {
		return match, same
	}
	byKey := map[string][]int{}
	for _, ci := range old[p : k-q] {
		key := m.keyOf(ci)
		byKey[key] = append(byKey[key], ci)
	}
	for i := p; i < n-q; i++ {
		key := ruleKey(&prog.Rules[i])
		if cs := byKey[key]; len(cs) > 0 {
			match[i], byKey[key] = cs[0], cs[1:]
			same++
			continue
		}
		match[i] = -1
	}
	return match, same
}

// sameRule reports whether ruleKey(a) == ruleKey(b), comparing the rules'
// parts instead of printing them when both are plain: atoms (positive or
// negated) and comparisons over variables and constants.
func sameRule(a, b *datalog.Rule) bool {
	if !plainRule(a) || !plainRule(b) {
		return ruleKey(a) == ruleKey(b)
	}
	if !sameAtom(&a.Head, &b.Head) || len(a.Body) != len(b.Body) {
		return false
	}
	for i := range a.Body {
		x, y := &a.Body[i], &b.Body[i]
		if x.Kind != y.Kind {
			return false
		}
		if x.Kind == datalog.Comparison {
			if x.Op != y.Op || !sameTerm(x.Left, y.Left) || !sameTerm(x.Right, y.Right) {
				return false
			}
			continue
		}
		if !sameAtom(&x.Atom, &y.Atom) {
			return false
		}
	}
	return true
}

// plainRule reports whether r's head is an atom and its body literals are
// atoms (positive or negated) and comparisons, all over variables and
// constants.
func plainRule(r *datalog.Rule) bool {
	if !plainArgs(r.Head.Args) {
		return false
	}
	for i := range r.Body {
		l := &r.Body[i]
		switch l.Kind {
		case datalog.Positive, datalog.Negated:
			if !plainArgs(l.Atom.Args) {
				return false
			}
		case datalog.Comparison:
			if l.Left.Kind == datalog.Compound || l.Right.Kind == datalog.Compound {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func plainArgs(ts []datalog.Term) bool {
	for i := range ts {
		if ts[i].Kind == datalog.Compound {
			return false
		}
	}
	return true
}

// sameAtom compares two atoms of plain rules but for their positions.
func sameAtom(a, b *datalog.Atom) bool {
	if a.Pred != b.Pred || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if !sameTerm(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}

// sameTerm compares two variables or constants but for their positions.
func sameTerm(a, b datalog.Term) bool {
	return a.Kind == b.Kind && a.Value == b.Value
}

// setProgram makes prog the program, its rules matched with the compiled
// ones as matchRules says (match), new ones compiled. It returns the rules
// whose facts must be derived again (removed or weakened) and the rules to
// evaluate whole (added or strengthened); the program's facts are applied
// at once.
func (m *Materialisation) setProgram(prog *datalog.Program, match []int) (kill, add []int, err error) {
	e := m.e
	m.record = nil
	kept := make([]bool, len(m.current))
	ruleOf := make([]int, len(prog.Rules))
	n0 := len(m.u.Prog.Rules)
	for i := range prog.Rules {
		r := &prog.Rules[i]
		if ci := match[i]; ci >= 0 {
			kept[ci] = true
			ruleOf[i] = ci
			w := eval.WeightOf(r.Weight)
			cr := e.Rules[ci]
			switch {
			case w < cr.Weight:
				kill = append(kill, ci)
			case w > cr.Weight:
				add = append(add, ci)
			}
			// The same rule takes the new program's syntax (positions
			// within it too), so that the old program's, parsed from the
			// record, can go: the two were 250 MB of an update of the
			// pinned FB15k-237 file.
			cur := &m.u.Prog.Rules[ci]
			cur.Head, cur.Body, cur.Comment = r.Head, r.Body, r.Comment
			if cur.Pos == r.Pos && cur.Weight == r.Weight {
				continue // the same rule at the same place
			}
			before := ruleRefOf(m.u, cr)
			cr.Weight = w
			if tw := m.twin[ci]; tw >= 0 {
				e.Rules[tw].Weight = w
			}
			m.u.Prog.Rules[ci].Weight, m.u.Prog.Rules[ci].Pos = r.Weight, r.Pos
			m.u.Descs[m.u.Meta[ci].Src] = eval.DescribeRule(r)
			if after := ruleRefOf(m.u, cr); after != before {
				m.renames[before] = after
				m.renamedRule[before] = ci
			}
			continue
		}
		ruleOf[i] = m.addRule(r)
		add = append(add, ruleOf[i])
	}
	for _, ci := range m.ruleOf {
		if !kept[ci] {
			m.current[ci] = false
			kill = append(kill, ci)
		}
	}
	slices.Sort(kill)
	if len(m.u.Prog.Rules) > n0 {
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
	oldSrc := m.u.FactSrc
	m.u.Prog.Facts = prog.Facts
	m.u.FactSrc = prog.Facts
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
		r := e.Rels[of.ri]
		t := r.Find(of.t)
		if t < 0 || r.ProvAt(t) != int32(eval.ProvFact0-of.idx) {
			continue // a rule or a base fact gives it more
		}
		nf, ok := m.facts[k]
		switch {
		case !ok || nf.w < of.w:
			m.remove(of.ri, t)
		case nf.w == of.w:
			// The same fact, perhaps elsewhere: the stored proofs are
			// renamed, not rewritten.
			r.Set(t, nf.w, int32(eval.ProvFact0-nf.idx))
			if a, b := eval.EncodeRule(eval.DescribeFact(&oldSrc[of.idx])), eval.EncodeRule(m.u.Fact(nf.idx)); a != b {
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
		m.raise(nf.ri, nf.t, nf.w, int32(eval.ProvFact0-nf.idx))
	}
	return nil
}
