package scoring

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// ModelScorer scores queries with DRUM models (dense scores): one model
// for every relation, or the group models of a run mined in head groups,
// each scoring the relations of its group. It is safe for concurrent use;
// each call takes a miner.Scorer from a small pool (a scorer holds
// L·(T+1) entity × batch blocks and runs the L ranks of a batch in
// parallel, so one or two workers are usually enough).
type ModelScorer struct {
	models []*miner.Model
	heads  [][]string
	g      *miner.Graph
	gpos   []int32 // graph entity index -> position in the entity list
	n      int
	rels   map[store.ID]string // the graph's relation names
	byRel  map[store.ID]int    // relation -> index in models; absent: 0
	pools  []chan *miner.Scorer
	unseen atomic.Int64 // queries over relations the models cannot score
}

// NewModelScorer adapts models, trained on the graph g, to Scorer for an
// evaluation that ranks the entities ents ([Options.Entities]; entities
// outside g score 0). heads[k] are the relations models[k] scores; nil
// heads: models[0] scores every relation.
func NewModelScorer(g *miner.Graph, ents []store.ID, models []*miner.Model, heads [][]string) *ModelScorer {
	pos := make(map[store.ID]int32, len(ents))
	for i, id := range ents {
		pos[id] = int32(i)
	}
	snap := g.Snapshot()
	s := &ModelScorer{models: models, heads: heads, g: g, gpos: make([]int32, len(snap.Entities)), n: len(ents),
		rels: map[store.ID]string{}, byRel: map[store.ID]int{}}
	for i, id := range snap.Entities {
		s.gpos[i] = pos[id]
	}
	names := g.Relations()
	for i, id := range snap.Relations {
		s.rels[id] = names[i]
	}
	for k := range models {
		s.pools = append(s.pools, make(chan *miner.Scorer, 8))
		if heads == nil {
			continue
		}
		for id, name := range s.rels {
			if slices.Contains(heads[k], name) {
				s.byRel[id] = k
			}
		}
	}
	return s
}

// Heads are the head relations the models were trained for, nil when one
// model was trained for every relation.
func (s *ModelScorer) Heads() []string {
	if s.heads == nil {
		return s.models[0].Config().Heads
	}
	var hs []string
	for _, h := range s.heads {
		hs = append(hs, h...)
	}
	return hs
}

// Unseen is the number of queries scored so far over relations the models
// never learnt (a relation without facts in the graph, or outside the
// heads the models were trained for): every candidate scored 0.
func (s *ModelScorer) Unseen() int64 { return s.unseen.Load() }

// Score implements Scorer: qs are queries of one relation, scored by the
// model of its group.
func (s *ModelScorer) Score(ctx context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
	k := s.byRel[qs[0].Rel]
	model, pool := s.models[k], s.pools[k]
	var sc *miner.Scorer
	select {
	case sc = <-pool:
	default:
		sc = model.NewScorer(s.g)
	}
	defer func() {
		select {
		case pool <- sc:
		default:
		}
	}()
	given := make([]int32, 0, len(qs))
	idx := make([]int, 0, len(qs))
	for i := range qs {
		out[i].SetDense(s.n) // zero scores for a given entity outside the graph
	}
	name, ok := s.rels[qs[0].Rel]
	if !ok {
		// A relation with no fact in the graph: nothing to propagate.
		s.unseen.Add(int64(len(qs)))
		return nil
	}
	for i, q := range qs {
		if gi, ok := s.g.EntityIndex(q.Given); ok {
			given = append(given, gi)
			idx = append(idx, i)
		}
	}
	if len(given) == 0 {
		return nil
	}
	// Inverse means tail prediction (Given, Rel, ?), which the miner asks
	// as inv_r: the same convention.
	res, err := sc.Scores(ctx, name, qs[0].Inverse, given, nil)
	if errors.Is(err, miner.ErrUnknownRelation) {
		// A relation the model never learnt (mined with --heads, or new
		// since): every candidate scores 0, as for rules that reach nothing.
		s.unseen.Add(int64(len(qs)))
		return nil
	}
	if err != nil {
		return err
	}
	for k, i := range idx {
		d := out[i].Dense
		for gi, v := range res[k] {
			d[s.gpos[gi]] = v
		}
	}
	return nil
}
