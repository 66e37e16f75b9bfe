package miner

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/store"
)

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
		return nil, pkgerr.Newf("miner: read train split: %w", err)
	}
	if !ok {
		// No train split: every graph fact is a query.
		for r := range R {
			m := g.fwd[r]
			for k := range m.Stored() {
				h := m.RowAt(k)
				for _, t := range m.Col[m.RowPtr[k]:m.RowPtr[k+1]] {
					train = append(train, triple{r: int32(r), h: h, t: t})
				}
			}
		}
	}
	// Edges to mask: the triple's own edge, unless it is also a fact of the
	// "facts" split (facts ∪ (train − batch) keeps it).
	inFacts := map[[3]int32]bool{}
	if facts, _, ok, err := readSplit(st, g, "facts", false); err != nil {
		return nil, pkgerr.Newf("miner: read facts split: %w", err)
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
				return nil, pkgerr.Newf("miner: head relation %q has no facts in the graph", h)
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
			return nil, pkgerr.Newf("miner: read valid split: %w", err)
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
