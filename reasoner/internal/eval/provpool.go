package eval

// ProvPool stores derivation records (a rule index, then a (relation,
// tuple) pair per body fact) in fixed-size chunks: appending never copies
// what is stored (a growing slice of tens of millions of words spent half of
// a transitive closure's time in copying), and a record never straddles
// two chunks. A record's position is chunk<<provChunkBits | offset.
type ProvPool struct {
	Chunks [][]uint32
}

const provChunkBits = 16

// ProvChunkBits is log2 of the words of a chunk of a ProvPool (a record
// longer than that has a chunk of its own).
const ProvChunkBits = provChunkBits

// Add stores a record and returns its position.
func (p *ProvPool) Add(rule uint32, refs []uint32) int32 {
	n := 1 + len(refs)
	last := len(p.Chunks) - 1
	if last < 0 || len(p.Chunks[last])+n > cap(p.Chunks[last]) {
		p.Chunks = append(p.Chunks, make([]uint32, 0, max(1<<provChunkBits, n)))
		last++
	}
	c := p.Chunks[last]
	pos := int32(last<<provChunkBits | len(c))
	c = append(c, rule)
	p.Chunks[last] = append(c, refs...)
	return pos
}

// Replace writes the record of rule and refs over the record at pos, which
// is as long (1 + len(refs) words): the words of a proof that a better one
// replaces, which Add would leave unused until the evaluation ends. Chunks
// stay a sequence of whole records.
func (p *ProvPool) Replace(pos int32, rule uint32, refs []uint32) {
	c := p.Chunks[pos>>provChunkBits]
	off := int(pos & (1<<provChunkBits - 1))
	c[off] = rule
	copy(c[off+1:off+1+len(refs)], refs)
}

// Record returns the rule index and the body references of the record at
// pos, nprov body facts long.
func (p *ProvPool) Record(pos int32, nprov int) (uint32, []uint32) {
	c := p.Chunks[pos>>provChunkBits]
	off := int(pos & (1<<provChunkBits - 1))
	return c[off], c[off+1 : off+1+2*nprov]
}

// Words returns the n provenance words of the record at pos.
func (p *ProvPool) Words(pos int32, n int) []uint32 {
	c := p.Chunks[pos>>provChunkBits]
	off := int(pos & (1<<provChunkBits - 1))
	return c[off+1 : off+1+n]
}

// Rule returns the rule index of the record at pos.
func (p *ProvPool) Rule(pos int32) uint32 {
	return p.Chunks[pos>>provChunkBits][pos&(1<<provChunkBits-1)]
}
