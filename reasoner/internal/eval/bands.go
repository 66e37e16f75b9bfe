package eval

import (
	"math"
	"slices"
)

// bandRatio is the ratio of a confidence band's lower bound to the highest
// confidence waiting below the band before it (see bands).
const bandRatio = 0.5

// bands orders a weighted fixpoint's rounds by confidence. Semi-naive
// evaluation joins every new or improved tuple of a round (its delta); under
// max-product a fact first derived weak and improved later is joined once
// per improvement, and on a mined program, where most facts are derived
// along many paths of different strengths, FB15k-237's merges had improved
// 7.5M tuples against 8.2M new ones by its fifth round. A derivation is never stronger than the weakest fact it uses, so
// once every tuple of confidence at least L has been joined, no fact of
// confidence at least L changes any more. The rounds therefore join only
// the delta tuples of the current band (confidence at least low) and keep
// the others waiting; when the band has no delta left, the next band starts
// at bandRatio times the strongest tuple waiting, and the waiting tuples
// it holds join. Each fact is then joined about once, at (or near) its
// final confidence. The fixpoint is the same; the rounds differ.
type bands struct {
	low     float64 // the current band's lower bound (+Inf before the first)
	waiting map[int32][]int32
}

// split keeps in delta the tuples of the current band and moves the others
// to the waiting list; when the band is done (no tuple left in delta), it
// starts the next band that holds waiting tuples and moves them back.
func (b *bands) split(e *Evaluator, delta map[int32][]int32) {
	if b.waiting == nil {
		b.waiting = map[int32][]int32{}
		b.low = math.Inf(1)
	}
	for ri, d := range delta {
		rel := e.Rels[ri]
		keep := d[:0]
		for _, t := range d {
			if rel.ConfAt(t) >= b.low {
				keep = append(keep, t)
			} else {
				b.waiting[ri] = append(b.waiting[ri], t)
			}
		}
		if len(keep) == 0 {
			delete(delta, ri)
		} else {
			delta[ri] = keep
		}
	}
	if len(delta) > 0 || len(b.waiting) == 0 {
		return
	}
	top := 0.0
	for ri, w := range b.waiting {
		rel := e.Rels[ri]
		for _, t := range w {
			if c := rel.ConfAt(t); c < b.low {
				top = max(top, c)
			}
		}
	}
	prev := b.low
	b.low = top * bandRatio
	for ri, w := range b.waiting {
		rel := e.Rels[ri]
		var in []int32
		rest := w[:0]
		for _, t := range w {
			switch c := rel.ConfAt(t); {
			case c >= prev:
				// It rose into an earlier band, where it was joined.
			case c >= b.low:
				in = append(in, t)
			default:
				rest = append(rest, t)
			}
		}
		if len(in) > 0 {
			slices.Sort(in)
			delta[ri] = slices.Compact(in)
		}
		if len(rest) == 0 {
			delete(b.waiting, ri)
		} else {
			b.waiting[ri] = rest
		}
	}
}
