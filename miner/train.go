package miner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/drumql/drumql/miner/internal/sparse"
	"github.com/drumql/drumql/store"
)

// Progress reports training progress after every batch and at the end of
// every epoch.
type Progress struct {
	Epoch         int     // 1-based epoch
	Batch         int     // batches done in this epoch
	Batches       int     // batches per epoch
	Loss          float64 // mean training loss over this epoch's batches so far
	Queries       int     // queries (both directions) done in this epoch
	Elapsed       time.Duration
	QueriesPerSec float64
	// EpochDone is set on the report sent after the validation pass of an
	// epoch; ValidLoss and ValidHits10 (raw, ties counted as hits, like the
	// original code) are then set when there is a validation split.
	EpochDone   bool
	ValidLoss   float64
	ValidHits10 float64
	// Plan: the training triples of an epoch (fewer than Triples when
	// Config.MaxQueries samples), all training triples, and the operator
	// entries that Config.MaxFanOut removed from propagation (hubs).
	EpochTriples, Triples, CappedEntries int
}

// ErrNoQueries is returned by Train when there is nothing to train on.
var ErrNoQueries = errors.New("miner: no training queries")

// triple is a dense (relation, head, tail).
type triple struct {
	r, h, t int32
	edge    int32 // edge id to mask while training on it, or −1
}

// batch is up to Config.Batch triples of one relation.
type batch struct {
	r  int
	ts []triple
}

// trainer holds everything one training run reuses across batches.
type trainer struct {
	m       *Model
	g       *Graph
	eng     *engine
	caches  [2]*attnCache
	a32     [2][][][]float32 // [group][rank][step][op]
	dA      [2][][][]float64
	groups  [2]group
	chunk   [2]group // columns of groups propagated together
	evalBuf [2][]float64
	seeds   [2][]float64
	grad    []float64
	mom     []float64 // Adam first moment
	vel     []float64 // Adam second moment
	steps   int
	masks   []*sparse.Mask
}

func newTrainer(m *Model, g *Graph) *trainer {
	lay := &m.lay
	tr := &trainer{m: m, g: g, eng: newEngine(g.view(m.rels).capHubs(m.cfg.MaxFanOut), m.numRel(), lay.nT, m.cfg.Threads)}
	for i := range 2 {
		tr.caches[i] = newAttnCache(lay)
		tr.a32[i] = make([][][]float32, lay.L)
		tr.dA[i] = make([][][]float64, lay.L)
		for j := range lay.L {
			tr.a32[i][j] = make([][]float32, lay.nT)
			tr.dA[i][j] = make([][]float64, lay.nT)
			for t := range lay.nT {
				tr.a32[i][j][t] = make([]float32, lay.nOps)
				tr.dA[i][j][t] = make([]float64, lay.nOps)
			}
		}
	}
	return tr
}

// setGroups fills the two groups (r and inv_r) of a batch.
func (tr *trainer) setGroups(b *batch) {
	R := tr.m.numRel()
	g0, g1 := &tr.groups[0], &tr.groups[1]
	g0.q, g1.q = b.r, b.r+R
	g0.given, g0.answer = g0.given[:0], g0.answer[:0]
	g1.given, g1.answer = g1.given[:0], g1.answer[:0]
	for _, x := range b.ts {
		// Query r: given the tail, find the head; inv_r the other way.
		g0.given, g0.answer = append(g0.given, x.t), append(g0.answer, x.h)
		g1.given, g1.answer = append(g1.given, x.h), append(g1.answer, x.t)
	}
}

// attention computes the attention of both groups.
func (tr *trainer) attention() {
	lay := &tr.m.lay
	for i := range 2 {
		tr.m.attnForward(tr.groups[i].q, tr.caches[i])
		for j := range lay.L {
			for t := range lay.nT {
				for k, v := range tr.caches[i].a[j][t] {
					tr.a32[i][j][t][k] = float32(v)
				}
			}
		}
	}
}

// lossGrad computes the mean loss of batch b under the current parameters
// and writes its gradient into grad (overwritten).
func (tr *trainer) lossGrad(b *batch, grad []float64) float64 {
	m, e := tr.m, tr.eng
	L, T := m.lay.L, m.lay.nT
	tr.setGroups(b)
	tr.attention()
	// Mask the batch's own edges.
	mask := tr.maskFor(b.r)
	for _, x := range b.ts {
		if x.edge >= 0 {
			mask.Set(x.edge)
		}
	}
	e.mask, e.maskRel = mask, b.r
	e.masked = e.masked[:0]
	for _, x := range b.ts {
		if x.edge >= 0 {
			e.masked = append(e.masked, [2]int32{x.h, x.t})
		}
	}
	short := !e.fullLast
	defer func() {
		for _, x := range b.ts {
			if x.edge >= 0 {
				mask.Clear(x.edge)
			}
		}
		e.mask, e.maskRel, e.masked = nil, -1, e.masked[:0]
	}()
	B := len(b.ts)
	N := float64(2 * B)
	var loss float64
	W := chunkWidth(e.budget, e.E, L, T, B)
	for lo := 0; lo < B; lo += W {
		hi := min(lo+W, B)
		loss += tr.chunkLossGrad(lo, hi, N, short, lo > 0)
	}
	clear(grad)
	for gi := range 2 {
		m.attnBackward(tr.caches[gi], tr.dA[gi], grad)
	}
	return loss / N
}

// blockBudget bounds the bytes of a batch's propagation blocks (2·L tasks
// of T+1 entity × column float32 blocks): a batch whose blocks would need
// more is propagated in chunks of columns. It depends on the graph and the
// configuration only, so the chunks, and with them the bytes of the model,
// do not depend on the machine.
const blockBudget = 1 << 30

// chunkWidth returns the number of columns propagated together for batches
// of B queries per direction on a graph of E entities: all B unless their
// blocks exceed budget (blockBudget but in tests), then the most that fit, a multiple of 8 (the
// kernels' vector width) when at least 8 fit.
func chunkWidth(budget, E, L, T, B int) int {
	per := 2 * L * (T + 1) * E * 4
	w := budget / max(per, 1)
	if w >= B {
		return B
	}
	if w >= 8 {
		w &^= 7
	}
	return max(w, 1)
}

// chunkLossGrad propagates columns [lo, hi) of both groups forward and
// back, with the seed of each query −1/(N·s), and returns their summed
// loss; the attention gradients go to tr.dA, added to what is there when
// add is set (later chunks) and overwriting it otherwise.
func (tr *trainer) chunkLossGrad(lo, hi int, N float64, short, add bool) float64 {
	m, e := tr.m, tr.eng
	L, T := m.lay.L, m.lay.nT
	groups := tr.sub(lo, hi)
	B := hi - lo
	e.ensure(2*L, B)
	e.run(2*L, func(i int, w *scratch) {
		gi, j := i/L, i%L
		e.forward(e.tasks[i], &groups[gi], tr.a32[gi][j], w, short)
	})
	var loss float64
	for gi := range 2 {
		gr := &groups[gi]
		if cap(tr.seeds[gi]) < B {
			tr.seeds[gi] = make([]float64, B)
		}
		seed := tr.seeds[gi][:B]
		for col, y := range gr.answer {
			var s float64
			for j := range L {
				tk := e.tasks[gi*L+j]
				if short {
					s += tk.last[col]
				} else {
					s += float64(tk.v[T][int(y)*B+col])
				}
			}
			loss -= math.Log(max(s, thr))
			seed[col] = 0
			if s > thr {
				seed[col] = -1 / (N * s)
			}
		}
	}
	e.run(2*L, func(i int, w *scratch) {
		gi := i / L
		e.backward(e.tasks[i], &groups[gi], tr.a32[gi][i%L], tr.seeds[gi][:B], w, short)
	})
	for gi := range 2 {
		for j := range L {
			for t := range T {
				dst, src := tr.dA[gi][j][t], e.tasks[gi*L+j].dA[t]
				if !add {
					copy(dst, src)
					continue
				}
				for k, v := range src {
					dst[k] += v
				}
			}
		}
	}
	return loss
}

// sub returns columns [lo, hi) of the two groups (all of them when the
// range covers them).
func (tr *trainer) sub(lo, hi int) *[2]group {
	for i := range 2 {
		g := &tr.groups[i]
		tr.chunk[i] = group{q: g.q, given: g.given[lo:hi], answer: g.answer[lo:hi]}
	}
	return &tr.chunk
}

func (tr *trainer) maskFor(r int) *sparse.Mask {
	if tr.masks == nil {
		tr.masks = make([]*sparse.Mask, tr.m.numRel())
	}
	if tr.masks[r] == nil {
		tr.masks[r] = sparse.NewMask(len(tr.eng.g.fwd[r].Col))
	}
	return tr.masks[r]
}

// step trains on one batch: gradient, element-wise clipping, Adam.
func (tr *trainer) step(b *batch) float64 {
	if tr.grad == nil {
		n := tr.m.lay.size
		tr.grad, tr.mom, tr.vel = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	loss := tr.lossGrad(b, tr.grad)
	cfg := &tr.m.cfg
	tr.steps++
	t := float64(tr.steps)
	lr := cfg.LR * math.Sqrt(1-math.Pow(adamBeta2, t)) / (1 - math.Pow(adamBeta1, t))
	p := tr.m.params
	for i, g := range tr.grad {
		g = min(max(g, -cfg.Clip), cfg.Clip)
		mo := adamBeta1*tr.mom[i] + (1-adamBeta1)*g
		ve := adamBeta2*tr.vel[i] + (1-adamBeta2)*g*g
		tr.mom[i], tr.vel[i] = mo, ve
		p[i] -= lr * mo / (math.Sqrt(ve) + adamEps)
	}
	return loss
}

// dataset is the training and validation data of a store, densely indexed.
type dataset struct {
	triples  []triple // every training triple, in file order
	all      []batch  // the batches of triples, used when no relation is bounded
	bounded  bool     // some relation has more than cfg.MaxQueries triples
	nTrain   int
	perEpoch int     // training triples of an epoch
	valid    []batch // validation triples (edge −1), grouped like train
	nValid   int
	R        int
	cfg      *Config
}

// Sampler stream constants: one PCG stream per epoch for the training
// sample, one for the validation sample.
const (
	streamTrain = 0x747261696e
	streamValid = 0x76616c6964
)

// epochBatches returns the batches of epoch (1-based): every training
// triple, or, when a relation has more than cfg.MaxQueries triples, a sample
// of cfg.MaxQueries of them drawn for this epoch.
func (ds *dataset) epochBatches(epoch int) []batch {
	if !ds.bounded {
		return ds.all
	}
	rng := rand.New(rand.NewPCG(ds.cfg.Seed, streamTrain+uint64(epoch)<<40))
	return makeBatches(sampleByRelation(ds.triples, ds.R, ds.cfg.MaxQueries, rng), ds.R, ds.cfg.Batch)
}

// epochQueries is the number of training triples of an epoch.
func (ds *dataset) epochQueries() int { return ds.perEpoch }

// countByRelation returns the number of triples of each relation.
func countByRelation(ts []triple, R int) []int {
	n := make([]int, R)
	for _, x := range ts {
		n[x.r]++
	}
	return n
}

// sampleByRelation keeps, of every relation with more than limit triples in
// ts, limit of them drawn without replacement by rng (relations in index
// order, a partial Fisher–Yates shuffle each), and every triple of the
// others; the result is in the order of ts. A limit ≤ 0 keeps everything.
func sampleByRelation(ts []triple, R, limit int, rng *rand.Rand) []triple {
	if limit <= 0 {
		return ts
	}
	byRel := make([][]int, R)
	for i, x := range ts {
		byRel[x.r] = append(byRel[x.r], i)
	}
	keep := make([]bool, len(ts))
	for _, idx := range byRel {
		if len(idx) <= limit {
			for _, i := range idx {
				keep[i] = true
			}
			continue
		}
		for j := range limit {
			k := j + rng.IntN(len(idx)-j)
			idx[j], idx[k] = idx[k], idx[j]
			keep[idx[j]] = true
		}
	}
	out := make([]triple, 0, len(ts))
	for i, x := range ts {
		if keep[i] {
			out = append(out, x)
		}
	}
	return out
}

// readSplit returns the dense triples of split name; ok is false when the
// split does not exist. Triples whose relation or entities are not in g are
// counted in skipped, or returned with −1 entity indices when keepMissing.
func readSplit(st Source, g *Graph, name string, keepMissing bool) (ts []triple, skipped int, ok bool, err error) {
	names, err := st.Splits()
	if err != nil {
		return nil, 0, false, err
	}
	if !slices.Contains(names, name) {
		return nil, 0, false, nil
	}
	relOf := make(map[store.ID]int, len(g.snap.Relations))
	for i, id := range g.snap.Relations {
		relOf[id] = i
	}
	for x, err := range st.Split(name) {
		if err != nil {
			return nil, 0, true, err
		}
		r, okR := relOf[x.R]
		h, okH := g.EntityIndex(x.S)
		t, okT := g.EntityIndex(x.O)
		if !okR || (!keepMissing && (!okH || !okT)) {
			skipped++
			continue
		}
		if !okH {
			h = -1 - int32(x.S) // keep the identity for given == answer
		}
		if !okT {
			t = -1 - int32(x.O)
		}
		ts = append(ts, triple{r: int32(r), h: h, t: t, edge: -1})
	}
	return ts, skipped, true, nil
}

// makeBatches groups triples by relation and cuts each relation's list, in
// file order, into batches of at most size; batches are ordered by the file
// position of their first triple.
func makeBatches(ts []triple, R, size int) []batch {
	byRel := make([][]int, R)
	for i, x := range ts {
		byRel[x.r] = append(byRel[x.r], i)
	}
	type pos struct {
		first int
		b     batch
	}
	var ps []pos
	for r, idx := range byRel {
		for lo := 0; lo < len(idx); lo += size {
			hi := min(lo+size, len(idx))
			b := batch{r: r}
			for _, i := range idx[lo:hi] {
				b.ts = append(b.ts, ts[i])
			}
			ps = append(ps, pos{idx[lo], b})
		}
	}
	slices.SortFunc(ps, func(a, b pos) int { return cmp.Compare(a.first, b.first) })
	out := make([]batch, len(ps))
	for i, p := range ps {
		out[i] = p.b
	}
	return out
}

// loadData reads the training and validation queries of st.
func loadData(st Source, g *Graph, cfg *Config) (*dataset, error) {
	R := len(g.relNames)
	ds := &dataset{}
	train, _, ok, err := readSplit(st, g, "train", false)
	if err != nil {
		return nil, fmt.Errorf("miner: read train split: %w", err)
	}
	if !ok {
		// No train split: every graph fact is a query.
		for r := range R {
			m := g.fwd[r]
			for h := range m.Rows {
				for _, t := range m.Col[m.RowPtr[h]:m.RowPtr[h+1]] {
					train = append(train, triple{r: int32(r), h: int32(h), t: t})
				}
			}
		}
	}
	// Edges to mask: the triple's own edge, unless it is also a fact of the
	// "facts" split (facts ∪ (train − batch) keeps it).
	inFacts := map[[3]int32]bool{}
	if facts, _, ok, err := readSplit(st, g, "facts", false); err != nil {
		return nil, fmt.Errorf("miner: read facts split: %w", err)
	} else if ok {
		want := make(map[[3]int32]bool, len(train))
		for _, x := range train {
			want[[3]int32{x.r, x.h, x.t}] = true
		}
		for _, x := range facts {
			k := [3]int32{x.r, x.h, x.t}
			if want[k] {
				inFacts[k] = true
			}
		}
	}
	var heads map[int32]bool
	if len(cfg.Heads) > 0 {
		heads = map[int32]bool{}
		for _, h := range cfg.Heads {
			r, ok := g.relIndex[h]
			if !ok {
				return nil, fmt.Errorf("miner: head relation %q has no facts in the graph", h)
			}
			heads[int32(r)] = true
		}
	}
	keep := train[:0]
	for _, x := range train {
		if heads != nil && !heads[x.r] {
			continue
		}
		x.edge = -1
		if !inFacts[[3]int32{x.r, x.h, x.t}] {
			x.edge = g.edgeID(int(x.r), x.h, x.t)
		}
		keep = append(keep, x)
	}
	train = keep
	ds.nTrain = len(train)
	ds.triples, ds.R, ds.cfg = train, R, cfg
	ds.perEpoch = len(train)
	if cfg.MaxQueries > 0 {
		ds.perEpoch = 0
		for _, n := range countByRelation(train, R) {
			ds.bounded = ds.bounded || n > cfg.MaxQueries
			ds.perEpoch += min(n, cfg.MaxQueries)
		}
	}
	if !ds.bounded {
		ds.all = makeBatches(train, R, cfg.Batch)
	}
	if !cfg.NoValid {
		valid, _, ok, err := readSplit(st, g, "valid", true)
		if err != nil {
			return nil, fmt.Errorf("miner: read valid split: %w", err)
		}
		if ok {
			vk := valid[:0]
			for _, x := range valid {
				if heads != nil && !heads[x.r] {
					continue
				}
				vk = append(vk, x)
			}
			vk = sampleByRelation(vk, R, cfg.MaxQueries, rand.New(rand.NewPCG(cfg.Seed, streamValid)))
			ds.nValid = len(vk)
			ds.valid = makeBatches(vk, R, cfg.Batch)
		}
	}
	return ds, nil
}

// Train learns a DRUM model from st: the graph is st's binary base facts, the
// queries its "train" split (every graph fact when there is none), early
// stopping uses its "valid" split. progress, if not nil, is called after
// every batch and every epoch.
//
// When ctx is cancelled, training stops after the current batch and Train
// returns the model with its current weights together with an error wrapping
// ctx.Err(); callers can still extract rules from it.
func Train(ctx context.Context, st GraphSource, cfg Config, progress func(Progress)) (*Model, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	g, err := LoadGraph(ctx, st)
	if err != nil {
		return nil, err
	}
	return TrainGraph(ctx, st, g, cfg, progress)
}

// TrainGraph is Train on a graph already loaded from st.
func TrainGraph(ctx context.Context, st Source, g *Graph, cfg Config, progress func(Progress)) (*Model, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	ds, err := loadData(st, g, &cfg)
	if err != nil {
		return nil, err
	}
	if ds.nTrain == 0 {
		return nil, ErrNoQueries
	}
	m := newModel(cfg, g.Relations())
	m.graph = g
	tr := newTrainer(m, g)
	var bestLoss, bestHits float64 = math.Inf(1), math.Inf(-1)
	for epoch := 1; epoch <= cfg.MaxEpochs; epoch++ {
		start := time.Now()
		var sum float64
		queries := 0
		batches := ds.epochBatches(epoch)
		for bi := range batches {
			if err := ctx.Err(); err != nil {
				return m, fmt.Errorf("miner: training stopped in epoch %d after %d of %d batches: %w", epoch, bi, len(batches), err)
			}
			b := &batches[bi]
			loss := tr.step(b)
			n := 2 * len(b.ts)
			sum += loss * float64(n)
			queries += n
			if progress != nil {
				el := time.Since(start)
				progress(Progress{Epoch: epoch, Batch: bi + 1, Batches: len(batches), Loss: sum / float64(queries),
					Queries: queries, Elapsed: el, QueriesPerSec: float64(queries) / max(el.Seconds(), 1e-9),
					EpochTriples: ds.epochQueries(), Triples: ds.nTrain, CappedEntries: tr.eng.g.capped})
			}
		}
		es := EpochStats{Epoch: epoch, TrainLoss: sum / float64(queries)}
		stop := false
		if ds.nValid > 0 {
			vl, vh, err := tr.validate(ctx, ds)
			if err != nil {
				m.history = append(m.history, es)
				return m, fmt.Errorf("miner: training stopped in epoch %d during validation: %w", epoch, err)
			}
			es.ValidLoss, es.ValidHits10 = vl, vh
			bestLoss, bestHits = min(bestLoss, vl), max(bestHits, vh)
			// Original early stop: continue while either metric equals its
			// best so far, or before MinEpochs.
			if vl != bestLoss && vh != bestHits && epoch >= cfg.MinEpochs {
				stop = true
			}
		}
		m.history = append(m.history, es)
		if progress != nil {
			el := time.Since(start)
			progress(Progress{Epoch: epoch, Batch: len(batches), Batches: len(batches), Loss: es.TrainLoss,
				Queries: queries, Elapsed: el, QueriesPerSec: float64(queries) / max(el.Seconds(), 1e-9),
				EpochDone: true, ValidLoss: es.ValidLoss, ValidHits10: es.ValidHits10})
		}
		if stop {
			break
		}
	}
	return m, nil
}

// validate returns the mean loss and raw Hits@10 over the validation
// queries (both directions), graph = every base fact, no mask.
func (tr *trainer) validate(ctx context.Context, ds *dataset) (loss, hits float64, err error) {
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
		for col, y := range gr.answer {
			x := gr.given[col]
			s[col] = 0
			switch {
			case y >= 0:
				for j := range L {
					s[col] += float64(e.tasks[gi*L+j].v[T][int(y)*B+col])
				}
			case y == x:
				s[col] = float64(L)
			}
			if x < 0 && x != y && float64(L) > s[col] {
				higher[col]++
			}
		}
		for _, row := range act {
			clear(v)
			o := int(row) * B
			for j := range L {
				for col, w := range e.tasks[gi*L+j].v[T][o : o+B] {
					v[col] += float64(w)
				}
			}
			for col, w := range v {
				if w > s[col] && gr.given[col] >= 0 {
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
