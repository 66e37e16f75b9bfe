package miner

import (
	"context"
	"math"
)

// validPass returns the mean loss and raw Hits@10 over the validation
// queries (both directions), graph = every base fact, no mask.
func (tr *trainer) validPass(ctx context.Context, ds *dataset) (loss, hits float64, err error) {
	n := 0
	for bi := range ds.valid {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		b := &ds.valid[bi]
		tr.setGroups(b)
		tr.attention()
		ls, hs := tr.evalGroups()
		loss += ls
		hits += hs
		n += 2 * len(b.ts)
	}
	return loss / float64(n), hits / float64(n), nil
}

// evalGroups propagates both groups without a mask and returns the summed
// loss and raw Hits@10 of their queries. A negative given or answer is an
// entity outside the graph: its start vector stays on itself (score L).
func (tr *trainer) evalGroups() (loss, hits float64) {
	m, e := tr.m, tr.eng
	L, T := m.lay.L, m.lay.nT
	n := len(tr.groups[0].given)
	W := chunkWidth(e.budget, e.E, L, T, n)
	for lo := 0; lo < n; lo += W {
		l, h := tr.evalChunk(tr.sub(lo, min(lo+W, n)))
		loss += l
		hits += h
	}
	return loss, hits
}

// evalChunk is evalGroups on the columns of groups.
func (tr *trainer) evalChunk(groups *[2]group) (loss, hits float64) {
	m, e := tr.m, tr.eng
	L, T := m.lay.L, m.lay.nT
	B := len(groups[0].given)
	e.ensure(2*L, B)
	e.run(2*L, func(i int, w *scratch) {
		gi, j := i/L, i%L
		e.forward(e.tasks[i], &groups[gi], tr.a32[gi][j], w, false)
	})
	// Per group: the answer's score, then one pass over the rows counting,
	// per column, the entities scored higher (row-major, as the blocks are).
	var gh [2]float64
	e.run(2, func(gi int, _ *scratch) {
		gr := &groups[gi]
		act := e.tasks[gi*L].act[T] // the same for every rank
		if cap(tr.evalBuf[gi]) < 3*B {
			tr.evalBuf[gi] = make([]float64, 3*B)
		}
		buf := tr.evalBuf[gi][:3*B]
		s, higher, v := buf[:B], buf[B:2*B], buf[2*B:]
		clear(higher)
		W := gr.width()
		for col, y := range gr.answer {
			x := gr.given[col]
			s[col] = 0
			switch {
			case y >= 0:
				for j := range L {
					s[col] += float64(e.tasks[gi*L+j].v[T][int(y)*W+gr.col(col)])
				}
			case y == x:
				s[col] = float64(L)
			}
			if x < 0 && x != y && float64(L) > s[col] {
				higher[col]++
			}
		}
		v = v[:W]
		for _, row := range act {
			clear(v)
			o := int(row) * W
			for j := range L {
				for c, w := range e.tasks[gi*L+j].v[T][o : o+W] {
					v[c] += float64(w)
				}
			}
			for col, sc := range s {
				if v[gr.col(col)] > sc && gr.given[col] >= 0 {
					higher[col]++
				}
			}
		}
		for _, h := range higher {
			if h < topK {
				gh[gi]++
			}
		}
	})
	// The loss in query order, as one sum.
	for gi := range 2 {
		for _, sc := range tr.evalBuf[gi][:B] {
			loss -= math.Log(max(sc, thr))
		}
	}
	hits = gh[0] + gh[1]
	return loss, hits
}
