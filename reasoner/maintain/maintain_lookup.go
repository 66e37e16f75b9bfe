package maintain

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/combine"
	"github.com/drumql/drumql/reasoner/internal/eval"
)

// Lookup answers q from the materialisation held in memory, as Query over
// the store it was written to answers it without a program (the stored
// base and derived facts, confidences as the store keeps them, in float32;
// sorted the same way), through the relation's hash index on the query's
// constants. ok is false when it cannot: q's relation is not one the
// materialisation holds whole (no rule reads it), or q has a number
// constant (which matches every symbol equal to it). With top > 0 only the
// first top answers are returned (built only for the facts that can be
// among them). Safe for concurrent use with other Lookups, not with Apply.
func (m *Materialisation) Lookup(ctx context.Context, q datalog.Atom, min float64, top int) (as []eval.Answer, ok bool, err error) {
	return m.lookup(ctx, q, min, top, nil)
}

// LookupNoisyOr is Lookup for answers that noisy-or over each answer's k
// best rules (k > 0) then rescores: with top > 0, it returns every answer
// that can be among the first top once rescored (StoredNoisyOr's
// RescoreFirst of them is then the first top of all the answers
// rescored), not only the first top as they are stored. With k <= 0
// (noisy-or over every rule), every answer.
func (m *Materialisation) LookupNoisyOr(ctx context.Context, q datalog.Atom, min float64, top, k int) (as []eval.Answer, ok bool, err error) {
	if k <= 0 {
		top = 0
	}
	return m.lookup(ctx, q, min, top, func(c float64) float64 { return combine.NoisyOrBound(c, k) })
}

// lookup is Lookup, and with bound LookupNoisyOr: bound(c) is the highest
// confidence an answer stored with confidence c can be rescored to, and
// increases with c.
func (m *Materialisation) lookup(ctx context.Context, q datalog.Atom, min float64, top int, bound func(c float64) float64) (as []eval.Answer, ok bool, err error) {
	e := m.e
	ri, held := e.RelIdx[eval.RelKey(q.Pred, len(q.Args))]
	if !held || !m.loaded[ri] {
		return nil, false, nil
	}
	r := e.Rels[ri]
	key := make([]uint32, len(q.Args))
	var mask uint32
	vars := map[string]int{} // variable -> first position
	for i, t := range q.Args {
		switch {
		case t.Kind == datalog.Number:
			return nil, false, nil
		case t.Kind == datalog.Var:
			continue
		}
		id, known := e.Syms.Lookup(t.Value)
		if !known {
			return nil, true, nil // a name no fact has
		}
		key[i] = id
		mask |= 1 << uint(i)
	}
	type cand struct {
		t int32
		c float64
	}
	var cands []cand
	try := func(t int32) {
		c := r.ConfAt(t)
		if c == 0 {
			return // removed by an update
		}
		c = float64(float32(c)) // what the store holds
		if c < min {
			return
		}
		tup := r.Tuple(t)
		if mask != 0 && !eval.SameKey(mask, tup, key) {
			return
		}
		clear(vars)
		for i, a := range q.Args {
			if a.Kind != datalog.Var || a.Value == "_" {
				continue
			}
			if j, seen := vars[a.Value]; seen && tup[j] != tup[i] {
				return
			} else if !seen {
				vars[a.Value] = i
			}
		}
		cands = append(cands, cand{t, c})
	}
	full := uint32(1)<<uint(r.Arity) - 1
	switch {
	case mask == 0:
		for t := range int32(r.Len()) {
			if t&0xfff == 0 {
				if err := ctx.Err(); err != nil {
					return nil, true, err
				}
			}
			try(t)
		}
	case mask == full:
		if t := r.Find(key); t >= 0 {
			try(t)
		}
	default:
		ix := r.Index(mask)
		for t := ix.First(r, key); t >= 0; t = ix.After(t) {
			try(t)
		}
	}
	wild := slices.ContainsFunc(q.Args, func(t datalog.Term) bool { return t.Kind == datalog.Var && t.Value == "_" })
	if top > 0 && !wild && len(cands) > top {
		// Only the facts at least as confident as the top-th can be among
		// the first top answers (ties are ordered by name below); with a
		// bound, those that can be rescored to at least its confidence.
		slices.SortFunc(cands, func(a, b cand) int { return cmp.Compare(b.c, a.c) })
		low, k := cands[top-1].c, top
		for k < len(cands) && (cands[k].c == low || bound != nil && bound(cands[k].c) >= low) {
			k++
		}
		cands = cands[:k]
	}
	mk := eval.NewAnswerMaker(e.Syms, q, false)
	var ids [][]uint32 // the arguments of each answer's fact
	for _, c := range cands {
		tup := r.Tuple(c.t)
		ans, err := mk.Answer(tup, c.c)
		if err != nil {
			return nil, true, err
		}
		as = append(as, ans)
		ids = append(ids, tup)
	}
	if wild {
		as = bestPerValues(as, ids)
	}
	if err := eval.SortAnswersCtx(ctx, as); err != nil {
		return nil, true, err
	}
	if top > 0 && len(as) > top && bound == nil {
		as = as[:top]
	}
	return as, true, nil
}

// bestPerValues keeps one answer per binding of the query's variables, the
// most confident, and of equals the one whose fact's arguments come first
// (as the store's scan in argument order keeps them): facts that differ
// only where the query has _ are one answer. ids holds each answer's
// fact's arguments.
func bestPerValues(as []eval.Answer, ids [][]uint32) []eval.Answer {
	at := map[string]int{}
	out := as[:0]
	var outIDs [][]uint32
	for i, a := range as {
		k := strings.Join(a.Values, "\x00")
		if j, ok := at[k]; ok {
			if a.Confidence > out[j].Confidence || a.Confidence == out[j].Confidence && slices.Compare(ids[i], outIDs[j]) < 0 {
				out[j], outIDs[j] = a, ids[i]
			}
			continue
		}
		at[k] = len(out)
		out = append(out, a)
		outIDs = append(outIDs, ids[i])
	}
	return out
}
