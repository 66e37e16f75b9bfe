package miner

import (
	"context"
	"errors"

	"github.com/drumql/drumql/internal/pkgerr"
)

// ErrUnknownRelation is returned for a query relation the model was not
// trained with.
var ErrUnknownRelation = errors.New("miner: unknown relation")

// Scorer scores all entities of a graph for queries, with the propagation of
// training (no mask). It reuses its buffers between calls and is not safe for
// concurrent use; create one per goroutine.
type Scorer struct {
	tr *trainer
}

// NewScorer prepares a scorer of m over g. g's relations are matched to the
// model's by name; relations of g the model does not know are ignored.
func (m *Model) NewScorer(g *Graph) *Scorer {
	return &Scorer{tr: newTrainer(m, g)}
}

// Scores returns, for every given entity (a dense index of the scorer's
// graph), the score of every entity as the answer of the query: for
// inverse false the query is queryRel(?, given) (head prediction, the
// original query r), for inverse true queryRel(given, ?) (tail prediction,
// inv_r). A score is Σ_j v_T^(j)[entity] ∈ [0, Rank]. dst is reused when it
// has the right shape. Queries are processed in chunks of Config.Batch.
func (s *Scorer) Scores(ctx context.Context, queryRel string, inverse bool, given []int32, dst [][]float32) ([][]float32, error) {
	tr := s.tr
	m, e := tr.m, tr.eng
	r, ok := m.relIdx[queryRel]
	if !ok {
		return nil, pkgerr.Newf("miner: scores for %q: %w", queryRel, ErrUnknownRelation)
	}
	q := r
	if inverse {
		q += m.numRel()
	}
	E := e.E
	for _, x := range given {
		if x < 0 || int(x) >= E {
			return nil, pkgerr.Newf("miner: scores for %q: entity index %d out of range [0,%d)", queryRel, x, E)
		}
	}
	if len(dst) != len(given) {
		dst = make([][]float32, len(given))
	}
	for i := range dst {
		if len(dst[i]) != E {
			dst[i] = make([]float32, E)
		} else {
			clear(dst[i])
		}
	}
	gr := &tr.groups[0]
	gr.q = q
	m.attnForward(q, tr.caches[0])
	L, T := m.lay.L, m.lay.nT
	for j := range L {
		for t := range T {
			for k, v := range tr.caches[0].a[j][t] {
				tr.a32[0][j][t][k] = float32(v)
			}
		}
	}
	chunk := min(m.cfg.Batch, chunkWidth(e.budget, E, L, T, m.cfg.Batch))
	for lo := 0; lo < len(given); lo += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+chunk, len(given))
		B := hi - lo
		gr.given = append(gr.given[:0], given[lo:hi]...)
		gr.answer = gr.answer[:0]
		e.ensure(L, B)
		e.run(L, func(j int, w *scratch) {
			e.forward(e.tasks[j], gr, tr.a32[0][j], w, false)
		})
		// Row by row (the blocks are row-major): the sum over ranks, in
		// rank order, of every column.
		if cap(tr.evalBuf[0]) < B {
			tr.evalBuf[0] = make([]float64, B)
		}
		v := tr.evalBuf[0][:B]
		for _, y := range e.tasks[0].act[T] {
			clear(v)
			o := int(y) * B
			for j := range L {
				for col, w := range e.tasks[j].v[T][o : o+B] {
					v[col] += float64(w)
				}
			}
			for col, w := range v {
				dst[lo+col][y] = float32(w)
			}
		}
	}
	return dst, nil
}

// Scores is a one-off [Scorer.Scores] over g.
func (m *Model) Scores(ctx context.Context, g *Graph, queryRel string, inverse bool, given []int32) ([][]float32, error) {
	return m.NewScorer(g).Scores(ctx, queryRel, inverse, given, nil)
}
