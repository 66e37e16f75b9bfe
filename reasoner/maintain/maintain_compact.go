package maintain

import (
	"maps"
	"slices"

	"github.com/drumql/drumql/reasoner/internal/eval"
)

// Compaction.
//
// An update removes a tuple by setting its confidence to 0 (provDeleted),
// and every derivation it makes appends a record to the provenance pool and
// the proof to the reverse index; none of it is reclaimed as it goes. A
// materialisation kept for a long time (drumql serve) and updated again and
// again would grow without end: facts added and removed leave their tuples
// behind, and the same facts added and removed over and over leave their
// superseded proofs. So, before an update, when the removed tuples
// outnumber the live ones, or the pool has grown to twice its size after
// the last compaction, the materialisation is compacted: the relations
// with removed tuples are rebuilt without them (with their indexes), the
// pool is rebuilt with the records of the live tuples only (their body
// references renumbered), and the reverse index is dropped (the update
// builds it again). Both thresholds have a floor, so that small
// materialisations are not compacted at every update; the cost, a pass
// over the live tuples, is paid once per as many removals (or
// derivations) as there are live tuples, and nothing is evaluated again.
// Removed tuples do not count toward Options.MaxFacts either: an update
// counts the facts it derives from the live ones (Apply counts the facts
// an update adds and removes).

// Floors of compaction: the removed tuples, and the provenance words, a
// materialisation holds before it is compacted.
const (
	compactTuples = 1024
	compactWords  = 1 << 14
)

// poolWords is the size of the provenance pool, in words.
func (m *Materialisation) poolWords() int {
	n := 0
	for _, c := range m.e.Pool.Chunks {
		n += len(c)
	}
	return n
}

// compactDue reports whether the materialisation is to be compacted.
func (m *Materialisation) compactDue() bool {
	dead, live := 0, 0
	for _, r := range m.e.Rels {
		if !r.Internal {
			dead += r.N - r.Alive
			live += r.Alive
		}
	}
	if dead -= m.deadMark; dead >= compactTuples && dead > live {
		return true
	}
	w := m.poolWords()
	if m.poolMark == 0 {
		m.poolMark = w // the first update: the pool as evaluated or resumed
	}
	return w >= compactWords && w > 2*m.poolMark
}

// compact rebuilds the relations that hold removed tuples without them,
// the provenance pool with the records of live tuples only, and drops the
// reverse index. Maintenance leaves no live proof that refers to a
// removed tuple (a proof whose body fact fell is replaced, and so is one
// whose negated fact fell: it is worth less than the rule now derives);
// should one remain, a removed fact matched by a negated literal becomes
// no match (what it is worth: 1 - 0), and a positive body fact is kept,
// counted in deadMark so that it does not make every update compact again. Not during an update (Apply's tuple
// indexes would go stale).
func (m *Materialisation) compact() {
	e := m.e
	// the tuples each relation with removed tuples keeps, and their new
	// indexes (-1: gone)
	renum := make([][]int32, len(e.Rels))
	for ri, r := range e.Rels {
		if r.Internal || r.Alive == r.N {
			continue
		}
		idx := make([]int32, r.N)
		for t := range int32(r.N) {
			if r.ConfAt(t) == 0 {
				idx[t] = -1
			}
		}
		renum[ri] = idx
	}
	// eachRef calls fn with the body references of the live proofs, k < 0
	// for a positive body fact.
	eachRef := func(fn func(k int, rr, rt uint32)) {
		for _, r := range e.Rels {
			for t := range int32(r.N) {
				p := r.ProvAt(t)
				if p < 0 || r.ConfAt(t) == 0 {
					continue
				}
				rule := e.Rules[e.Pool.Rule(p)]
				_, refs := e.Pool.Record(p, rule.Nprov)
				for k := range rule.Nprov {
					if refs[2*k] != eval.NoMatch {
						fn(k-rule.Npos, refs[2*k], refs[2*k+1])
					}
				}
			}
		}
	}
	eachRef(func(k int, rr, rt uint32) {
		if idx := renum[rr]; idx != nil && k < 0 {
			idx[rt] = 0 // a body fact of a live proof: kept
		}
	})
	for _, idx := range renum {
		n := int32(0)
		for t, x := range idx {
			if x >= 0 {
				idx[t] = n
				n++
			}
		}
	}
	// The new pool: a copy of each live tuple's record, its body
	// references renumbered.
	var pool eval.ProvPool
	var buf []uint32
	moved := func(p int32) int32 {
		if p < 0 {
			return p
		}
		ci := e.Pool.Rule(p)
		rule := e.Rules[ci]
		buf = append(buf[:0], e.Pool.Words(p, rule.RefWords())...)
		for k := range rule.Nprov {
			rr := buf[2*k]
			if rr == eval.NoMatch || renum[rr] == nil {
				continue
			}
			if t := renum[rr][buf[2*k+1]]; t >= 0 {
				buf[2*k+1] = uint32(t)
			} else {
				// a negated literal matched a fact since removed: as
				// if it matched nothing (1 - 0)
				buf[2*k] = eval.NoMatch
			}
		}
		return pool.Add(ci, buf)
	}
	for ri, r := range e.Rels {
		if idx := renum[ri]; idx != nil {
			nr := eval.NewRelation(r.Name, r.Arity)
			nr.Display, nr.Internal, nr.CheckEmit = r.Display, r.Internal, r.CheckEmit
			for t := range int32(r.N) {
				if idx[t] >= 0 {
					nr.Add(r.Tuple(t), r.ConfAt(t), moved(r.ProvAt(t)))
				}
			}
			for _, mask := range slices.Sorted(maps.Keys(r.Idx)) {
				nr.Index(mask)
			}
			e.Rels[ri] = nr
			continue
		}
		for t := range int32(r.N) {
			if p := r.ProvAt(t); p >= 0 && r.ConfAt(t) > 0 {
				r.Prov[t>>eval.ChunkBits][t&eval.ChunkMask] = moved(p)
			}
		}
	}
	e.Pool = pool
	e.Derived = m.countDerived()
	m.deadMark = 0
	for _, r := range e.Rels {
		if !r.Internal {
			m.deadMark += r.N - r.Alive
		}
	}
	m.rev = revIndex{}
	m.touchAt, m.seenAt = nil, nil // sized for the tuples before
	m.poolMark = m.poolWords()
}

// countDerived counts the live tuples that are not base facts, of the
// relations that are not internal: the facts Options.MaxFacts caps.
func (m *Materialisation) countDerived() int {
	n := 0
	for _, r := range m.e.Rels {
		if r.Internal {
			continue
		}
		for t := range int32(r.N) {
			if r.ConfAt(t) > 0 && r.ProvAt(t) != eval.ProvBase {
				n++
			}
		}
	}
	return n
}
