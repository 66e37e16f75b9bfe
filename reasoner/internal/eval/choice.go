package eval

import (
	"encoding/binary"
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
