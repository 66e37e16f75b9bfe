package linkpred

import (
	"context"
	"errors"
	"math"
	"runtime"

	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/internal/workpool"
	"github.com/drumql/drumql/store"
)

// ErrBadScores reports scores that break the [Scores] contract: a dense
// vector of the wrong length, or a sparse candidate out of range or listed
// twice.
var ErrBadScores = errors.New("linkpred: malformed scores")

// DefaultBatchSize is the number of queries per Score call when
// Options.BatchSize is 0.
const DefaultBatchSize = 64

// Options configures [Evaluate]. The zero value means the defaults.
type Options struct {
	// Entities is the candidate list: every entity that can answer a query,
	// each once. Dense scores are indexed by position in this list, and
	// Candidate.Entity is a position in it. Use all entities of the dataset
	// (the snapshot's entities and those of entities.txt; see
	// [UnionEntities]). Nil means filter.Entities().
	Entities []store.ID
	// Workers bounds the number of concurrent Score calls; 0 means
	// runtime.GOMAXPROCS(0). Results do not depend on it.
	Workers int
	// BatchSize is the maximum number of queries per Score call; 0 means
	// DefaultBatchSize.
	BatchSize int
	// PerQuery keeps every query's Rank in Report.Ranks.
	PerQuery bool
	// PruneAt, when set, gives the threshold of the pruned pass (see
	// [Pruner]) of each query, 0 for none, in place of the one learnt from
	// the queries ranked before it. For tests: the ranks never depend on
	// it, only the work does.
	PruneAt func(q Query) float64
}

// Evaluate ranks the answer of every query among all candidate entities,
// filtering out the query's other true answers listed in filter (nil filter:
// raw ranking), and reports MRR, MR and Hits@1/3/10 under the three tie
// policies, per direction and over all queries.
//
// Queries are grouped by (Rel, Inverse), in order of first appearance, into
// batches of at most opt.BatchSize distinct queries, which a pool of
// opt.Workers goroutines scores. Queries that differ only in their answer
// (the same relation, direction and given entity: a relation's many
// answers for one entity) are scored once, in the same batch, and each
// answer ranked on those scores (see worker.go). A scorer that is a
// [Pruner] scores such a query first from its strong rule confidences
// alone, where that decides every rank exactly, and in full otherwise;
// the ranks are the same either way. The report is summed in
// query order, so it does not depend on the number of workers. On a scorer
// error or cancellation Evaluate returns the error of the earliest failing
// batch.
func Evaluate(ctx context.Context, qs []Query, scorer Scorer, filter *Filter, opt Options) (*Report, error) {
	reps, err := EvaluateVariants(ctx, qs, asVariants(scorer), 1, filter, opt)
	if err != nil {
		return nil, err
	}
	return reps[0], nil
}

// VariantScorer scores queries under several variants at once (for example
// one rule application ranked by several aggregators): ScoreVariants fills
// out[v][i] with the scores of qs[i] under variant v. The concurrency rules
// of [Scorer] apply.
type VariantScorer interface {
	ScoreVariants(ctx context.Context, qs []Query, out [][]Scores) error
}

// single adapts a Scorer to a VariantScorer of one variant.
type single struct{ Scorer }

func (s single) ScoreVariants(ctx context.Context, qs []Query, out [][]Scores) error {
	return s.Score(ctx, qs, out[0])
}

// EvaluateVariants is [Evaluate] for k variants of a scorer sharing one
// pass over the queries: it returns one report per variant, each exactly
// what Evaluate returns for that variant alone.
func EvaluateVariants(ctx context.Context, qs []Query, scorer VariantScorer, k int, filter *Filter, opt Options) ([]*Report, error) {
	if k < 1 {
		return nil, pkgerr.Newf("linkpred: %d variants", k)
	}
	ents := opt.Entities
	if ents == nil {
		ents = filter.Entities()
	}
	index := make(map[store.ID]int32, len(ents))
	for i, e := range ents {
		if _, dup := index[e]; dup {
			return nil, pkgerr.Newf("linkpred: entity %d listed twice in Options.Entities", e)
		}
		index[e] = int32(i)
	}
	if len(ents) > math.MaxInt32 {
		return nil, pkgerr.Newf("linkpred: %d entities: too many", len(ents))
	}
	batches := makeBatches(qs, cmpOr(opt.BatchSize, DefaultBatchSize))
	workers := min(cmpOr(opt.Workers, runtime.GOMAXPROCS(0)), max(len(batches), 1))

	ranks := make([][]Rank, k)
	scored := make([][]bool, k)
	for v := range ranks {
		ranks[v] = make([]Rank, len(qs))
		scored[v] = make([]bool, len(qs))
	}
	nans := make([][]int, len(batches))
	errs := make([]error, len(batches))

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ws := make([]*worker, workers) // per goroutine, made on first use
	workpool.Run(workers, len(batches), func(w, b int) bool {
		if err := ctx.Err(); err != nil {
			errs[b] = err
			return false
		}
		if ws[w] == nil {
			ws[w] = newWorker(len(ents), index, filter, scorer, k)
			ws[w].pruneAt = opt.PruneAt
		}
		nans[b] = make([]int, k)
		if err := ws[w].run(ctx, qs, batches[b], ranks, scored, nans[b]); err != nil {
			errs[b] = err
			cancel()
			return false
		}
		return true
	})
	if err := firstError(parent, errs); err != nil {
		return nil, err
	}

	unindexed := 0
	for _, q := range qs {
		if _, ok := index[q.Answer]; !ok {
			unindexed++
		}
	}
	reps := make([]*Report, k)
	for v := range reps {
		rep := &Report{Unindexed: unindexed}
		for _, n := range nans {
			rep.NaN += n[v]
		}
		rep.summarise(qs, ranks[v])
		if opt.PerQuery {
			rep.Ranks, rep.Scored = ranks[v], scored[v]
		}
		reps[v] = rep
	}
	return reps, nil
}

// firstError picks the error to report: the caller's cancellation, else the
// earliest batch error that is not a cancellation we caused, else the
// earliest error.
func firstError(parent context.Context, errs []error) error {
	if err := parent.Err(); err != nil {
		return pkgerr.Newf("linkpred: evaluate: %w", err)
	}
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// cmpOr returns v, or def if v <= 0.
func cmpOr(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// makeBatches groups query indices by (Rel, Inverse) in order of first
// appearance and cuts each group into batches of at most size units: a unit
// holds the queries that share their Given (they differ only in the
// answer), the first one's index first.
func makeBatches(qs []Query, size int) [][][]int {
	type key struct {
		rel store.ID
		inv bool
	}
	type unitKey struct {
		key
		given store.ID
	}
	var order []key
	groups := make(map[key][]int) // unit indices, in order
	unitOf := make(map[unitKey]int)
	var units [][]int
	for i, q := range qs {
		k := key{q.Rel, q.Inverse}
		uk := unitKey{k, q.Given}
		u, ok := unitOf[uk]
		if !ok {
			if _, seen := groups[k]; !seen {
				order = append(order, k)
			}
			u = len(units)
			unitOf[uk] = u
			units = append(units, nil)
			groups[k] = append(groups[k], u)
		}
		units[u] = append(units[u], i)
	}
	var batches [][][]int
	for _, k := range order {
		g := groups[k]
		for len(g) > 0 {
			n := min(size, len(g))
			b := make([][]int, n)
			for j, u := range g[:n] {
				b[j] = units[u]
			}
			batches = append(batches, b)
			g = g[n:]
		}
	}
	return batches
}
