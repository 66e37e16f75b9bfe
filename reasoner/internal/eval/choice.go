package eval

import (
	"encoding/binary"
	"math"
)

// choiceSet holds the keys taken in a relation with choice domains
// (Options.Choice): per key (a list of argument positions), the values
// that tuples of the relation have there.
type choiceSet struct {
	keys  [][]int
	taken []map[string]struct{}
	buf   []byte
}

func newChoiceSet(keys [][]int) *choiceSet {
	c := &choiceSet{keys: keys, taken: make([]map[string]struct{}, len(keys))}
	for i := range c.taken {
		c.taken[i] = map[string]struct{}{}
	}
	return c
}

// choose reports whether tuple t may be added to r: r has no choice
// domain, or no tuple of r has t's values at the positions of any of its
// keys; then it takes t's keys.
func (r *Relation) choose(t []uint32) bool {
	c := r.choice
	if c == nil {
		return true
	}
	for i := range c.keys {
		if _, ok := c.taken[i][c.key(i, t)]; ok {
			return false
		}
	}
	r.take(t)
	return true
}

// take takes the keys of tuple t in r's choice domain, if any: a base
// fact of the store is in the relation whatever its keys (Soufflé's
// input was chosen when it was read), and the tuples derived later must
// not share them.
func (r *Relation) take(t []uint32) {
	if c := r.choice; c != nil {
		for i := range c.keys {
			c.taken[i][c.key(i, t)] = struct{}{}
		}
	}
}

// key returns the values of t at the positions of key i, encoded.
func (c *choiceSet) key(i int, t []uint32) string {
	c.buf = c.buf[:0]
	for _, p := range c.keys[i] {
		c.buf = binary.LittleEndian.AppendUint32(c.buf, t[p])
	}
	return string(c.buf)
}

// bestSet holds, for a relation ordered by a lattice (Options.Lattice),
// the best value of each key (the values at the other positions).
type bestSet struct {
	l    Lattice
	syms *Symtab
	best map[string]float64
	buf  []byte
}

func newBestSet(l Lattice, syms *Symtab) *bestSet {
	return &bestSet{l: l, syms: syms, best: map[string]float64{}}
}

// improves reports whether tuple t may be added to r: r has no lattice,
// t's value is not a number, or no tuple of r with t's key has a value as
// good as t's; then t's value becomes its key's best.
func (r *Relation) improves(t []uint32) bool {
	b := r.best
	if b == nil || b.l.Pos >= len(t) {
		return true
	}
	v, ok := b.syms.Number(t[b.l.Pos])
	if !ok || math.IsNaN(v) {
		return true
	}
	b.buf = b.buf[:0]
	for i, x := range t {
		if i != b.l.Pos {
			b.buf = binary.LittleEndian.AppendUint32(b.buf, x)
		}
	}
	if old, ok := b.best[string(b.buf)]; ok && (b.l.Min && old <= v || !b.l.Min && old >= v) {
		return false
	}
	b.best[string(b.buf)] = v
	return true
}
