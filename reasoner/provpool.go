package reasoner

// provPool stores derivation records (a rule index, then a (relation,
// tuple) pair per body fact) in fixed-size chunks: appending never copies
// what is stored (a growing slice of tens of millions of words spent half of
// a transitive closure's time in copying), and a record never straddles
// two chunks. A record's position is chunk<<provChunkBits | offset.
type provPool struct {
	chunks [][]uint32
}

const provChunkBits = 16

// add stores a record and returns its position.
func (p *provPool) add(rule uint32, refs []uint32) int32 {
	n := 1 + len(refs)
	last := len(p.chunks) - 1
	if last < 0 || len(p.chunks[last])+n > cap(p.chunks[last]) {
		p.chunks = append(p.chunks, make([]uint32, 0, max(1<<provChunkBits, n)))
		last++
	}
	c := p.chunks[last]
	pos := int32(last<<provChunkBits | len(c))
	c = append(c, rule)
	p.chunks[last] = append(c, refs...)
	return pos
}

// record returns the rule index and the body references of the record at
// pos, nprov body facts long.
func (p *provPool) record(pos int32, nprov int) (uint32, []uint32) {
	c := p.chunks[pos>>provChunkBits]
	off := int(pos & (1<<provChunkBits - 1))
	return c[off], c[off+1 : off+1+2*nprov]
}

// words returns the n provenance words of the record at pos.
func (p *provPool) words(pos int32, n int) []uint32 {
	c := p.chunks[pos>>provChunkBits]
	off := int(pos & (1<<provChunkBits - 1))
	return c[off+1 : off+1+n]
}

// rule returns the rule index of the record at pos.
func (p *provPool) rule(pos int32) uint32 {
	return p.chunks[pos>>provChunkBits][pos&(1<<provChunkBits-1)]
}
