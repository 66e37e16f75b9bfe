package eval

import "slices"

// outBuf holds candidate facts: per record the relation, the rule index (or
// ^0 for a copy), the tuple, then 2 words per provenance reference.
//
// A buffer keeps one record per fact where it can (see put): a rule through
// a hub derives the same fact along thousands of paths, and buffering each
// derivation until the round's merge held most of the memory of a mined
// program's evaluation (1.2 GB of 1.6 on FB15k-237) and most of the merge's
// work. The merge (evaluator.apply) keeps, per fact, the first record of
// the highest confidence; so does put within a buffer, and buffers are
// merged in task order, so what is kept does not depend on how the round
// was cut into tasks.
type outBuf struct {
	words []uint32
	conf  []float64
	offs  []int32  // word offset of each record
	slots []uint64 // open addressing: hash<<32 | record+1, 0 empty
	used  []int32  // the occupied slots, which reset clears
}

// reset empties b, keeping its memory.
func (b *outBuf) reset() {
	b.words, b.conf, b.offs = b.words[:0], b.conf[:0], b.offs[:0]
	if len(b.used) > len(b.slots)/8 {
		clear(b.slots)
	} else {
		for _, s := range b.used {
			b.slots[s] = 0
		}
	}
	b.used = b.used[:0]
}

// put adds the candidate h of relation rel derived by rule (with refs) at
// confidence c, unless the buffer holds the same fact at a confidence at
// least c. A better candidate replaces the buffered record in place when
// their layouts agree (as many reference words),
// which keeps the fact where its first derivation put it; otherwise it is
// appended and the merge sees both, in order, as it would without put.
func (b *outBuf) put(e *Evaluator, rel, rule uint32, h, refs []uint32, c float64) {
	if 2*(len(b.used)+1) > len(b.slots) {
		b.grow()
	}
	mask := uint64(len(b.slots) - 1)
	hash := hashWords(hashKey(1<<len(h)-1, h)^uint64(rel)) >> 32
	s := hash & mask
	for ; b.slots[s] != 0; s = (s + 1) & mask {
		if b.slots[s]>>32 != hash {
			continue
		}
		k := int(uint32(b.slots[s])) - 1
		off := int(b.offs[k])
		if b.words[off] != rel || !slices.Equal(b.words[off+2:off+2+len(h)], h) {
			continue
		}
		if c <= b.conf[k] {
			return
		}
		if old := b.words[off+1]; old == rule || e.refLen(old) == len(refs) {
			b.words[off+1] = rule
			copy(b.words[off+2+len(h):], refs)
			b.conf[k] = c
			return
		}
		b.slots[s] = hash<<32 | uint64(len(b.conf)+1)
		b.append(rel, rule, h, refs, c)
		return
	}
	b.slots[s] = hash<<32 | uint64(len(b.conf)+1)
	b.used = append(b.used, int32(s))
	b.append(rel, rule, h, refs, c)
}

func (b *outBuf) append(rel, rule uint32, h, refs []uint32, c float64) {
	b.offs = append(b.offs, int32(len(b.words)))
	b.words = append(b.words, rel, rule)
	b.words = append(b.words, h...)
	b.words = append(b.words, refs...)
	b.conf = append(b.conf, c)
}

// grow doubles the slots (at least 64) and reinserts the old slots: a
// slot's position comes from the hash it stores.
func (b *outBuf) grow() {
	old := b.slots
	b.slots = make([]uint64, max(64, 2*len(old)))
	mask := uint64(len(b.slots) - 1)
	for i, o := range b.used {
		v := old[o]
		s := v >> 32 & mask
		for b.slots[s] != 0 {
			s = (s + 1) & mask
		}
		b.slots[s] = v
		b.used[i] = int32(s)
	}
}
