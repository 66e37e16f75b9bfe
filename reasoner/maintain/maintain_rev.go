package maintain

import "github.com/drumql/drumql/reasoner/internal/eval"

// revIndex maps a tuple to the tuples whose best proofs use it as a positive
// body fact: the over-deletion of an update follows it (maintain.go). It is
// built once, on a materialisation's first update, as compressed rows over
// the tuples then known; the proofs updates make later are added to a map.
// Entries go stale as proofs change and are never removed: a reader checks
// that the proof still uses the tuple (Materialisation.proofUses).
type revIndex struct {
	built bool
	start [][]int32 // per relation, per tuple at build time: offsets into deps (n+1 of them)
	deps  []uint64  // tkey of the dependent tuples
	// The proofs made since the build: per tuple a list threaded through
	// extraDep in the order they were added. first and last mark each
	// tuple with 1 + the index of its list's first and last entries (0:
	// none); extraNext is, per entry, 1 + the next one's. (A map of a
	// slice per tuple cost a fifth of an update that made 700,000 proofs.)
	first, last eval.Marks
	extraNext   []int32
	extraDep    []uint64
}

// buildRev builds the reverse index of the materialisation's proofs, once,
// when an update first needs it (a fact whose confidence fell): an update
// that only adds builds none (through the CLI, each update starts from a
// materialisation read back, and the index of 4.0M proofs took a fifth of
// adding an edge to a closure).
func (m *Materialisation) buildRev() {
	x := &m.rev
	if x.built {
		return
	}
	e := m.e
	x.built = true
	x.start = make([][]int32, len(e.Rels))
	// each calls fn with every (body fact, dependent) pair.
	each := func(fn func(src, dep uint64)) {
		for ri, r := range e.Rels {
			if r.Internal {
				continue
			}
			for t := range int32(r.Len()) {
				p := r.ProvAt(t)
				if p < 0 {
					continue
				}
				rule := e.Rules[e.Pool.Rule(p)]
				_, refs := e.Pool.Record(p, rule.Nprov)
				for j := range rule.Npos {
					fn(eval.Tkey(int32(refs[2*j]), int32(refs[2*j+1])), eval.Tkey(int32(ri), t))
				}
			}
		}
	}
	each(func(src, _ uint64) {
		ri, t := eval.Untkey(src)
		if x.start[ri] == nil {
			x.start[ri] = make([]int32, e.Rels[ri].Len()+1)
		}
		x.start[ri][t+1]++
	})
	n := int32(0)
	for _, s := range x.start {
		for i := 1; i < len(s); i++ {
			s[i] += s[i-1]
		}
		if len(s) > 0 {
			n += s[len(s)-1]
		}
	}
	// Offsets become absolute: each relation's rows follow the previous
	// relation's.
	base := int32(0)
	for _, s := range x.start {
		if len(s) == 0 {
			continue
		}
		last := s[len(s)-1]
		for i := range s {
			s[i] += base
		}
		base += last
	}
	x.deps = make([]uint64, n)
	fill := make([][]int32, len(x.start))
	for ri, s := range x.start {
		if len(s) > 0 {
			fill[ri] = append([]int32(nil), s[:len(s)-1]...)
		}
	}
	each(func(src, dep uint64) {
		ri, t := eval.Untkey(src)
		x.deps[fill[ri][t]] = dep
		fill[ri][t]++
	})
}

// each calls fn with the tuples whose proofs used tuple k (some may no
// longer use it).
func (x *revIndex) each(k uint64, fn func(dep uint64)) {
	ri, t := eval.Untkey(k)
	if int(ri) < len(x.start) {
		if s := x.start[ri]; int(t)+1 < len(s) {
			for _, d := range x.deps[s[t]:s[t+1]] {
				fn(d)
			}
		}
	}
	for i := x.first.Get(ri, t); i != 0; i = x.extraNext[i-1] {
		fn(x.extraDep[i-1])
	}
}

// addProof indexes the current proof of tuple dep, once the index is
// built (before, building it reads the current proofs).
func (x *revIndex) addProof(m *Materialisation, dep uint64) {
	if !x.built {
		return
	}
	e := m.e
	ri, t := eval.Untkey(dep)
	p := e.Rels[ri].ProvAt(t)
	if p < 0 {
		return
	}
	rule := e.Rules[e.Pool.Rule(p)]
	_, refs := e.Pool.Record(p, rule.Nprov)
	for j := range rule.Npos {
		x.addExtra(int32(refs[2*j]), int32(refs[2*j+1]), dep)
	}
}

// addExtra appends dep to the list of tuple t of relation ri.
func (x *revIndex) addExtra(ri, t int32, dep uint64) {
	x.extraDep = append(x.extraDep, dep)
	x.extraNext = append(x.extraNext, 0)
	i := int32(len(x.extraDep)) // 1 + the new entry's index
	if l := x.last.Get(ri, t); l != 0 {
		x.extraNext[l-1] = i
	} else {
		x.first.Set(ri, t, i)
	}
	x.last.Set(ri, t, i)
}
