package eval

import "slices"

// record decodes the record of b at word pos (see outBuf): its relation,
// rule, tuple and provenance references, and the position of the next one.
func (e *Evaluator) record(b *outBuf, pos int) (ri int32, rule uint32, t, refs []uint32, next int) {
	if b.mixed {
		ri, rule = int32(b.words[pos]), b.words[pos+1]
		pos += 2
	} else {
		ri, rule = int32(b.rel), b.rule
	}
	t = b.words[pos : pos+e.Rels[ri].Arity]
	pos += len(t)
	n := e.refLen(rule)
	return ri, rule, t, b.words[pos : pos+n], pos + n
}

// refLen is the number of provenance words of a record of rule (^0: a copy).
func (e *Evaluator) refLen(rule uint32) int {
	switch {
	case rule == ^uint32(0):
		return 2
	case e.Prov:
		return e.Rules[rule].RefWords()
	}
	return 0
}

// apply merges the buffers into the relations in order and returns the
// delta: per relation, the sorted indices of new or improved tuples.
func (e *Evaluator) apply(bufs []outBuf, delta map[int32][]int32) error {
	var sink uint64
	merged := 0
	records := 0
	for bi := range bufs {
		records += bufs[bi].len()
	}
	e.maxBatch = max(e.maxBatch, int64(records))
	// The deltas by relation while the merge runs (a map access per new
	// tuple was 2% of sg-2k), put back in delta at the end.
	ds := e.deltaBuf[:0]
	for range e.Rels {
		ds = append(ds, nil)
	}
	for ri, d := range delta {
		ds[ri] = d
	}
	defer func() {
		for ri, d := range ds {
			if len(d) > 0 {
				delta[int32(ri)] = d
			}
		}
		clear(ds)
		e.deltaBuf = ds[:0]
	}()
	for bi := range bufs {
		b := &bufs[bi]
		e.Cands += int64(b.len())
		pos := 0
		for ci := range b.len() {
			c := b.confAt(ci)
			if ci%prefetchBatch == 0 {
				sink += e.prefetch(b, pos, ci)
			}
			if merged%memCheckEvery == 0 {
				if err := e.checkMemoryAhead(memCheckEvery); err != nil {
					return err
				}
			}
			merged++
			var ri int32
			var rule uint32
			var t, refs []uint32
			ri, rule, t, refs, pos = e.record(b, pos)
			rel := e.Rels[ri]
			k, at, free := rel.lookup(t)
			rel.cands++
			if k >= 0 && c <= rel.ConfAt(k) {
				rel.dups++
				continue
			}
			prov := int32(ProvUnknown)
			switch {
			case rule == ^uint32(0):
				prov = e.Rels[refs[0]].ProvAt(int32(refs[1]))
			case e.Prov:
				prov = e.proofRecord(rel, k, rule, refs)
			}
			if k >= 0 {
				if e.Touch != nil {
					e.Touch.Before(rel, ri, k)
				}
				rel.Set(k, c, prov)
			} else {
				if !rel.choose(t) {
					continue // a tuple with its choice-domain key was added before
				}
				if err := e.count(1); err != nil {
					return err
				}
				k = rel.addAt(t, c, prov, at, free)
				if e.Touch != nil {
					e.Touch.Added(ri, k)
				}
			}
			ds[ri] = append(ds[ri], k)
		}
	}
	e.sink = sink
	// Tasks of the same round read what this merge added: order the
	// chains it made stale (between tasks, as only the merge writes).
	for ri, d := range ds {
		if r := e.Rels[ri]; len(d) > 0 && !r.Shared {
			r.reorderIndexes()
		}
	}
	return nil
}

// proofRecord stores the proof of rule and refs for tuple k of rel (-1: a
// new tuple) and returns its position in the pool. With provInPlace, a
// tuple whose confidence rises gets its new proof written over its old
// one when the two records are as long (the same rule, or one with as
// many body facts): Infer's pool holds one record a tuple instead of one a
// rise, the bytes that otherwise stay unused until the evaluation ends.
// Nothing else refers to the old record: only the tuple's Prov does (a
// copy rule would share it, and Infer's units have none: provInPlace),
// and no Touch log keeps it for an update to put back.
func (e *Evaluator) proofRecord(rel *Relation, k int32, rule uint32, refs []uint32) int32 {
	if k >= 0 && e.provInPlace && e.Touch == nil {
		if old := rel.ProvAt(k); old >= 0 && e.Rules[e.Pool.Rule(old)].RefWords() == len(refs) {
			e.Pool.Replace(old, rule, refs)
			return old
		}
	}
	return e.Pool.Add(rule, refs)
}

// lookup finds the tuple t of r as Find does and returns its index, or -1
// and, when r's unique index has room for one more tuple without growing,
// the free slot where t goes (free), with t's hash in its high bits: a
// new tuple is then added without hashing and probing again (addAt).
func (r *Relation) lookup(t []uint32) (k int32, at uint64, free bool) {
	ix := &r.Unique
	if ix.seg != nil && !r.sorted {
		hash := hashKey(ix.mask, t)
		s := ix.seg.at(uint32(hash))
		p, ok := ix.seg.find(ix, r, s, hash, t)
		if ok {
			return slotTuple(s.slots[p]), 0, false
		}
		return -1, hash<<32 | p, s.hasRoom()
	}
	if r.Arity == 0 || r.sorted || len(ix.Slots) == 0 {
		return r.Find(t), 0, false
	}
	p, hash, ok := ix.slot(r, t)
	if ok {
		return slotTuple(ix.Slots[p]), 0, false
	}
	if n := ix.count + 1; 2*n > len(ix.Slots) && (!ix.full || 4*n > 3*len(ix.Slots)) {
		return -1, 0, false // insert will grow the table (hashIndex.insert)
	}
	return -1, hash<<32 | p, true
}

// addAt is Add of a tuple that lookup did not find, into the slot it
// returned when free.
func (r *Relation) addAt(t []uint32, c float64, prov int32, at uint64, free bool) int32 {
	if !free {
		return r.Add(t, c, prov)
	}
	i := r.add(t, c, prov)
	if s := r.Unique.seg; s != nil {
		g := s.at(uint32(at >> 32))
		g.slots[uint32(at)] = slotOf(i, at>>32)
		g.count++
	} else {
		r.Unique.Slots[uint32(at)] = slotOf(i, at>>32)
	}
	r.Unique.count++
	return i
}

// endRound sorts and deduplicates the tuples of delta and sets, for every
// relation, whether workers should drop known candidates next round.
func (e *Evaluator) endRound(delta map[int32][]int32) {
	for ri, d := range delta {
		slices.Sort(d)
		delta[ri] = slices.Compact(d)
	}
	for _, r := range e.Rels {
		if r.Shared {
			continue // read-only, shared by concurrent queries
		}
		// Workers look a candidate up before buffering it only where that
		// pays: when many candidates were already known last round. The
		// result is the same either way (apply decides). While they look
		// up, the merge sees only the repeats they missed, so a relation
		// keeps the lookups while one candidate in 8 still repeats. A lean
		// relation (Evaluate) that goes without them starts again only
		// when 7 in 8 repeat: the merge looks a candidate up for a fraction
		// of what a worker's lookup costs (prefetched in batches, see
		// prefetch; the worker's probes are one dependent miss after
		// another), and a crisp buffer of new facts costs 20 bytes a
		// candidate (outBuf.plain). sg-2k: 30% less CPU than with the
		// lookups back at 1 in 8, 30% more peak RSS.
		if r.cands >= 1024 {
			if r.CheckEmit || !r.Lean {
				r.CheckEmit = 8*r.dups >= r.cands
			} else {
				r.CheckEmit = 8*r.dups >= 7*r.cands
			}
		}
		r.cands, r.dups = 0, 0
	}
}

// prefetchBatch is the number of candidate facts whose hash slots apply
// loads ahead of processing them.
const prefetchBatch = 64

// prefetch reads the unique-index slots of the next prefetchBatch records
// of b from word pos (record ci) on. The loads are independent, so the
// processor overlaps their cache misses, which on tables of millions of
// facts are what a lookup costs; apply then finds the slots in cache. It
// returns a value that depends on the loads, so that they are not removed.
func (e *Evaluator) prefetch(b *outBuf, pos, ci int) uint64 {
	var sum uint64
	for k := ci; k < b.len() && k < ci+prefetchBatch; k++ {
		var ri int32
		var t []uint32
		ri, _, t, _, pos = e.record(b, pos)
		rel := e.Rels[ri]
		if ix := &rel.Unique; ix.seg != nil {
			h := hashKey(ix.mask, t)
			sum += ix.seg.at(uint32(h)).slots[h&segMask]
		} else if rel.Arity > 0 && len(ix.Slots) > 0 {
			sum += ix.Slots[hashKey(ix.mask, t)&uint64(len(ix.Slots)-1)]
		}
	}
	return sum
}
