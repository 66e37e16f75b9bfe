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
//
// A buffer holds, per candidate, its words (tuple and references, and its
// relation, rule and a word offset once the buffer is mixed, see
// outBuf.words), a hash slot at a load of at most 3/4 until it is plain,
// and a float64 confidence only once a candidate's is not 1: a crisp
// program's binary candidate costs 8 bytes in a plain buffer, where the
// relation and rule words and the offset of every record made it 20
// (sg-2k's candidate buffers: 50 MB at the largest batch, the largest
// item of its evaluation), and a confidence column and slots at a load of
// at most 1/2 with a list of the occupied ones 48 to 64.
//
// A crisp buffer whose first plainAfter candidates were nearly all
// distinct (fewer than one in plainRatio found in the buffer) stops
// looking its candidates up (plain): on sg-2k the buffer's table was 15%
// of the CPU and found almost nothing, the workers' own check (seen.go)
// having dropped the repeats first. A candidate a plain buffer holds twice
// is merged twice, with the outcome of one record: the merge keeps the
// first of the highest confidence, as put does.
type outBuf struct {
	// words holds the records. While the buffer is uniform (not mixed:
	// every record of relation rel, rule rule and rec words, as a task's
	// buffer is, a task being a slice of one plan) a record is its tuple
	// and references only, record k at word k*rec; once a record differs,
	// every record is rel, rule, tuple, references, at offs.
	words     []uint32
	n         int       // number of records
	rel, rule uint32    // of every record, while uniform
	rec       int       // words of a record, while uniform
	mixed     bool      // records of several layouts: rel and rule in words, offs
	conf      []float64 // nil while every candidate's confidence is 1
	offs      []int32   // word offset of each record, once mixed
	slots     []uint64  // open addressing: hash<<32 | record+1, 0 empty
	// puts and hits count put's calls and those that found their fact,
	// until plain.
	puts, hits int
	plain      bool
}

// A buffer becomes plain after plainAfter candidates of which fewer than
// one in plainRatio were found in it.
const (
	plainAfter = 1 << 12
	plainRatio = 64
)

// len is the number of records of b.
func (b *outBuf) len() int { return b.n }

// body is the word offset of the tuple of record k.
func (b *outBuf) body(k int) int {
	if b.mixed {
		return int(b.offs[k]) + 2
	}
	return k * b.rec
}

// relOf and ruleOf are the relation and rule of record k.
func (b *outBuf) relOf(k int) uint32 {
	if b.mixed {
		return b.words[b.offs[k]]
	}
	return b.rel
}

func (b *outBuf) ruleOf(k int) uint32 {
	if b.mixed {
		return b.words[b.offs[k]+1]
	}
	return b.rule
}

// mix rewrites the records of a uniform buffer with their relation and
// rule, at offsets: a record of another layout is coming.
func (b *outBuf) mix() {
	words := make([]uint32, 0, len(b.words)+2*b.n+16)
	b.offs = b.offs[:0]
	for k := range b.n {
		b.offs = append(b.offs, int32(len(words)))
		words = append(words, b.rel, b.rule)
		words = append(words, b.words[k*b.rec:(k+1)*b.rec]...)
	}
	b.words, b.mixed = words, true
}

// confAt is the confidence of record k.
func (b *outBuf) confAt(k int) float64 {
	if b.conf == nil {
		return 1
	}
	return b.conf[k]
}

// setConf sets the confidence of record k, making the confidences a
// column when c is not 1.
func (b *outBuf) setConf(k int, c float64) {
	if b.conf == nil {
		if c == 1 {
			return
		}
		b.conf = make([]float64, b.n, max(16, 2*b.n))
		for i := range b.conf {
			b.conf[i] = 1
		}
	}
	b.conf[k] = c
}

// reset empties b, keeping its memory; slots many times more than the
// records need are dropped (a large round's buffer is not kept for the
// small rounds after it), the rest cleared.
func (b *outBuf) reset() {
	if len(b.slots) > 64 && len(b.slots) > 16*b.n {
		b.slots = nil
	} else {
		clear(b.slots)
	}
	b.words, b.offs = b.words[:0], b.offs[:0]
	b.n, b.mixed = 0, false
	b.puts, b.hits, b.plain = 0, 0, false
	if b.conf != nil {
		b.conf = b.conf[:0]
	}
}

// put adds the candidate h of relation rel derived by rule (with refs) at
// confidence c, unless the buffer holds the same fact at a confidence at
// least c. A better candidate replaces the buffered record in place when
// their layouts agree (as many reference words),
// which keeps the fact where its first derivation put it; otherwise it is
// appended and the merge sees both, in order, as it would without put.
func (b *outBuf) put(e *Evaluator, rel, rule uint32, h, refs []uint32, c float64) {
	switch {
	case b.n == 0 && !b.mixed:
		b.rel, b.rule, b.rec = rel, rule, len(h)+len(refs)
	case !b.mixed && (rel != b.rel || rule != b.rule || len(h)+len(refs) != b.rec):
		b.mix()
	}
	if b.plain {
		b.append(rel, rule, h, refs, c)
		return
	}
	if b.puts++; b.puts == plainAfter && b.conf == nil && plainRatio*b.hits < b.puts {
		b.plain = true
		b.append(rel, rule, h, refs, c)
		return
	}
	if 4*(b.n+1) > 3*len(b.slots) {
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
		off := b.body(k)
		if b.relOf(k) != rel || !slices.Equal(b.words[off:off+len(h)], h) {
			continue
		}
		b.hits++
		if c <= b.confAt(k) {
			return
		}
		// A uniform buffer's records are all of rule.
		if old := b.ruleOf(k); old == rule || e.refLen(old) == len(refs) {
			if b.mixed {
				b.words[off-1] = rule
			}
			copy(b.words[off+len(h):], refs)
			b.setConf(k, c)
			return
		}
		b.slots[s] = hash<<32 | uint64(b.n+1)
		b.append(rel, rule, h, refs, c)
		return
	}
	b.slots[s] = hash<<32 | uint64(b.n+1)
	b.append(rel, rule, h, refs, c)
}

func (b *outBuf) append(rel, rule uint32, h, refs []uint32, c float64) {
	if b.mixed {
		b.offs = append(b.offs, int32(len(b.words)))
		b.words = append(b.words, rel, rule)
	}
	b.words = append(b.words, h...)
	b.words = append(b.words, refs...)
	b.n++
	if b.conf != nil {
		b.conf = append(b.conf, c)
	} else {
		b.setConf(b.n-1, c)
	}
}

// grow doubles the slots (at least 64) and reinserts the old ones: a
// slot's position comes from the hash it stores.
func (b *outBuf) grow() {
	old := b.slots
	b.slots = make([]uint64, max(64, 2*len(old)))
	mask := uint64(len(b.slots) - 1)
	for _, v := range old {
		if v == 0 {
			continue
		}
		s := v >> 32 & mask
		for b.slots[s] != 0 {
			s = (s + 1) & mask
		}
		b.slots[s] = v
	}
}
