package store

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/drumql/drumql/internal/csr"
)

// relArity identifies the facts of one relation with one arity.
type relArity struct {
	Rel   ID
	Arity int
}

// dict is the in-memory symbol dictionary shared by DB and Mem.
type dict struct {
	names []string
	ids   map[string]ID
}

func newDict() dict { return dict{ids: make(map[string]ID)} }

func (d *dict) lookup(name string) (ID, bool) {
	id, ok := d.ids[name]
	return id, ok
}

func (d *dict) add(name string) ID {
	id := ID(len(d.names))
	d.names = append(d.names, name)
	d.ids[name] = id
	return id
}

// prepared is a batch resolved against the current dictionary and facts: what
// a load has to write. Nothing in it has touched the store yet.
type prepared struct {
	nsym0      int      // dictionary size before the load
	newNames   []string // names with ids nsym0, nsym0+1, ... in order
	facts      []Fact   // new base facts, deduplicated, in batch order
	skipped    int      // base facts already present or repeated in the batch
	splitNames []string // sorted
	splits     map[string][]Triple
	added      map[relArity]int // new base facts per relation and arity
}

// items is the number of entries the load writes, the total of its progress.
func (p *prepared) items() int {
	n := len(p.newNames) + len(p.facts)
	for _, s := range p.splits {
		n += len(s)
	}
	return n
}

// empty reports whether the load changes nothing but (identical or not)
// splits.
func (p *prepared) empty() bool {
	return len(p.newNames) == 0 && len(p.facts) == 0 && len(p.splits) == 0
}

func (p *prepared) stats() LoadStats {
	st := LoadStats{NewSymbols: len(p.newNames), NewFacts: len(p.facts), Skipped: p.skipped}
	if len(p.splits) > 0 {
		st.Splits = make(map[string]int, len(p.splits))
		for name, ts := range p.splits {
			st.Splits[name] = len(ts)
		}
	}
	return st
}

// checkEvery is how many items a long loop handles between context checks
// and progress reports.
const checkEvery = 1 << 12

// prepareBatch interns the names of b (in order of first appearance: Symbols,
// then Graph triples subject, relation, object, then Facts, then Splits by
// sorted name), deduplicates the facts and drops those the store already
// holds. lookup resolves committed names; has reports committed facts and is
// only asked about facts whose symbols are all committed.
func prepareBatch(ctx context.Context, b *Batch, nsym0 int, lookup func(string) (ID, bool), has func(Fact) (bool, error)) (p *prepared, err error) {
	if b == nil {
		b = &Batch{}
	}
	bp := &batchPrep{
		p:      &prepared{nsym0: nsym0, added: make(map[relArity]int)},
		nsym0:  nsym0,
		lookup: lookup,
		has:    has,
		local:  make(map[string]ID),
		seen2:  make(map[[3]ID]struct{}, len(b.Graph)),
		seenN:  make(map[string]struct{}),
	}
	defer func() {
		if bp.long != nil {
			p, err = nil, bp.long
		}
	}()
	for _, s := range b.Symbols {
		bp.intern(s)
	}
	bp.p.facts = make([]Fact, 0, len(b.Graph)+len(b.Facts))
	if err := bp.addGraph(ctx, b.Graph); err != nil {
		return nil, err
	}
	if err := bp.addFacts(ctx, b.Facts); err != nil {
		return nil, err
	}
	if err := bp.addSplits(b.Splits); err != nil {
		return nil, err
	}
	return bp.p, ctx.Err()
}

// batchPrep is prepareBatch's state: the names interned so far and the
// facts seen.
type batchPrep struct {
	p      *prepared
	nsym0  int
	lookup func(string) (ID, bool)
	has    func(Fact) (bool, error)
	local  map[string]ID // new names, by name
	long   error         // the first name CheckName refuses
	seen2  map[[3]ID]struct{}
	seenN  map[string]struct{}
	kbuf   []byte
}

// intern returns name's id: committed, interned earlier in the batch, or
// the next new one.
func (bp *batchPrep) intern(name string) ID {
	if id, ok := bp.lookup(name); ok {
		return id
	}
	if id, ok := bp.local[name]; ok {
		return id
	}
	if bp.long == nil {
		bp.long = CheckName(name)
	}
	id := ID(bp.nsym0 + len(bp.p.newNames))
	bp.local[name] = id
	bp.p.newNames = append(bp.p.newNames, name)
	return id
}

// isNew reports whether id was interned by this batch.
func (bp *batchPrep) isNew(id ID) bool { return int(id) >= bp.nsym0 }

// addFact keeps f unless the batch already has it or the store holds it.
func (bp *batchPrep) addFact(f Fact) error {
	p := bp.p
	fresh := bp.isNew(f.Rel)
	for _, a := range f.Args {
		fresh = fresh || bp.isNew(a)
	}
	if len(f.Args) == 2 {
		k := [3]ID{f.Rel, f.Args[0], f.Args[1]}
		if _, dup := bp.seen2[k]; dup {
			p.skipped++
			return nil
		}
		bp.seen2[k] = struct{}{}
	} else {
		bp.kbuf = naryKey(bp.kbuf[:0], f.Rel, f.Args)
		if _, dup := bp.seenN[string(bp.kbuf)]; dup {
			p.skipped++
			return nil
		}
		bp.seenN[string(bp.kbuf)] = struct{}{}
	}
	if !fresh {
		ok, err := bp.has(f)
		if err != nil {
			return err
		}
		if ok {
			p.skipped++
			return nil
		}
	}
	p.facts = append(p.facts, f)
	p.added[relArity{f.Rel, len(f.Args)}]++
	return nil
}

// addGraph adds the binary facts of the graph's triples.
func (bp *batchPrep) addGraph(ctx context.Context, graph []NamedTriple) error {
	// The arguments of the binary facts share one array: an allocation per
	// fact was a third of a large load's allocations.
	args := make([]ID, 0, 2*len(graph))
	for i, t := range graph {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s, r, o := bp.intern(t.S), bp.intern(t.R), bp.intern(t.O)
		args = append(args, s, o)
		if err := bp.addFact(Fact{Rel: r, Args: args[len(args)-2 : len(args) : len(args)]}); err != nil {
			return err
		}
	}
	return nil
}

// addFacts adds the facts of any arity.
func (bp *batchPrep) addFacts(ctx context.Context, facts []NamedFact) error {
	for i, nf := range facts {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if len(nf.Args) > maxArity {
			return fmt.Errorf("store: load: fact %s/%d: arity above %d", nf.Rel, len(nf.Args), maxArity)
		}
		f := Fact{Rel: bp.intern(nf.Rel)}
		if len(nf.Args) > 0 {
			f.Args = make([]ID, len(nf.Args))
		}
		for j, a := range nf.Args {
			f.Args[j] = bp.intern(a)
		}
		if err := bp.addFact(f); err != nil {
			return err
		}
	}
	return nil
}

// addSplits interns the splits' triples, by sorted split name.
func (bp *batchPrep) addSplits(splits map[string][]NamedTriple) error {
	if len(splits) == 0 {
		return nil
	}
	p := bp.p
	p.splits = make(map[string][]Triple, len(splits))
	for name := range splits {
		if len(name) > 1<<15 {
			return fmt.Errorf("store: load: split name too long")
		}
		p.splitNames = append(p.splitNames, name)
	}
	sort.Strings(p.splitNames)
	for _, name := range p.splitNames {
		src := splits[name]
		ts := make([]Triple, len(src))
		for i, t := range src {
			ts[i] = Triple{S: bp.intern(t.S), R: bp.intern(t.R), O: bp.intern(t.O)}
		}
		p.splits[name] = ts
	}
	return nil
}

// retraction is a retraction resolved against the dictionary and the
// facts: what it has to delete.
type retraction struct {
	facts   []Fact           // present base facts to remove, distinct, in batch order
	missing int              // facts named that are absent, repeated or unknown
	removed map[relArity]int // facts removed per relation and arity
}

func (r *retraction) stats() RetractStats {
	return RetractStats{Removed: len(r.facts), Missing: r.missing}
}

// prepareRetract resolves the facts of b (Graph, then Facts) with lookup,
// which resolves committed names, and has, which reports committed facts.
func prepareRetract(ctx context.Context, b *Batch, lookup func(string) (ID, bool), has func(Fact) (bool, error)) (*retraction, error) {
	r := &retraction{removed: make(map[relArity]int)}
	if b == nil {
		return r, nil
	}
	seen := make(map[string]struct{})
	var kbuf []byte
	args := make([]ID, 0, 2*len(b.Graph))
	add := func(f Fact) error {
		kbuf = factKey(kbuf[:0], f)
		if _, dup := seen[string(kbuf)]; dup {
			r.missing++
			return nil
		}
		seen[string(kbuf)] = struct{}{}
		ok, err := has(f)
		if err != nil {
			return err
		}
		if !ok {
			r.missing++
			return nil
		}
		r.facts = append(r.facts, f)
		r.removed[relArity{f.Rel, len(f.Args)}]++
		return nil
	}
	n := 0
	tick := func() error {
		n++
		if n%checkEvery == 1 {
			return ctx.Err()
		}
		return nil
	}
	for _, t := range b.Graph {
		if err := tick(); err != nil {
			return nil, err
		}
		s, ok1 := lookup(t.S)
		rel, ok2 := lookup(t.R)
		o, ok3 := lookup(t.O)
		if !ok1 || !ok2 || !ok3 {
			r.missing++
			continue
		}
		args = append(args, s, o)
		if err := add(Fact{Rel: rel, Args: args[len(args)-2 : len(args) : len(args)]}); err != nil {
			return nil, err
		}
	}
	for _, nf := range b.Facts {
		if err := tick(); err != nil {
			return nil, err
		}
		rel, ok := lookup(nf.Rel)
		if !ok || len(nf.Args) > maxArity {
			r.missing++
			continue
		}
		f := Fact{Rel: rel}
		if len(nf.Args) > 0 {
			f.Args = make([]ID, len(nf.Args))
		}
		for j, a := range nf.Args {
			if f.Args[j], ok = lookup(a); !ok {
				break
			}
		}
		if !ok {
			r.missing++
			continue
		}
		if err := add(f); err != nil {
			return nil, err
		}
	}
	return r, ctx.Err()
}

// updateOp is one change of a derived update: the fact, as the suffix of
// its D key (so ops sort in key order), and its new derivation, or nil to
// delete it.
type updateOp struct {
	key []byte
	put *Derived
}

// relArity is the relation and arity of the op's fact.
func (op *updateOp) relArity() relArity { return relArity{getID(op.key), int(op.key[4])} }

// prepareUpdate checks u and returns its changes sorted by fact, one per
// fact: a fact both deleted and put is put, and a fact put twice keeps the
// later put.
func prepareUpdate(ctx context.Context, u *DerivedUpdate) ([]updateOp, error) {
	ops := make([]updateOp, 0, len(u.Delete)+len(u.Put))
	var ar arena
	for i, f := range u.Delete {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if len(f.Args) <= maxArity { // longer facts cannot be stored
			ops = append(ops, updateOp{key: appendFactSuffix(ar.alloc(5+4*len(f.Args)), f)})
		}
	}
	for i := range u.Put {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		x := &u.Put[i]
		if err := checkDerived(x); err != nil {
			return nil, err
		}
		ops = append(ops, updateOp{key: appendFactSuffix(ar.alloc(5+4*len(x.Fact.Args)), x.Fact), put: x})
	}
	slices.SortStableFunc(ops, func(a, b updateOp) int { return bytes.Compare(a.key, b.key) })
	out := ops[:0]
	for i, op := range ops {
		if i+1 < len(ops) && bytes.Equal(op.key, ops[i+1].key) {
			continue // the last op of a fact wins
		}
		out = append(out, op)
	}
	return out, ctx.Err()
}

// relationsFrom merges base and derived counts into sorted RelationStats.
func relationsFrom(base, derived map[relArity]int, name func(ID) string) []RelationStats {
	byRel := make(map[ID]*RelationStats)
	add := func(m map[relArity]int, isBase bool) {
		for ra, n := range m {
			if n == 0 {
				continue
			}
			rs := byRel[ra.Rel]
			if rs == nil {
				rs = &RelationStats{Rel: ra.Rel, Name: name(ra.Rel), Arity: ra.Arity}
				byRel[ra.Rel] = rs
			} else if rs.Arity != ra.Arity {
				rs.Arity = -1
			}
			if isBase {
				rs.Base += n
			} else {
				rs.Derived += n
			}
		}
	}
	add(base, true)
	add(derived, false)
	out := make([]RelationStats, 0, len(byRel))
	for _, rs := range byRel {
		out = append(out, *rs)
	}
	slices.SortFunc(out, func(a, b RelationStats) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return int(a.Rel) - int(b.Rel)
	})
	return out
}

// arities returns the arities with facts of rel in m, ascending.
func arities(m map[relArity]int, rel ID) []int {
	var as []int
	for ra, n := range m {
		if ra.Rel == rel && n > 0 {
			as = append(as, ra.Arity)
		}
	}
	slices.Sort(as)
	return as
}

// dedupDerived returns the indices of ds to keep: one per distinct fact, the
// one with the highest confidence (the first on ties), in input order.
func dedupDerived(ctx context.Context, ds []Derived) ([]int, error) {
	seed := maphash.MakeSeed()
	first := make(map[uint64]int32, len(ds))
	var spill map[string]int32 // facts whose hash collided with another fact
	keep := make([]bool, len(ds))
	var buf []byte
	for i := range ds {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if len(ds[i].Fact.Args) > maxArity {
			return nil, fmt.Errorf("store: derived fact with arity %d above %d", len(ds[i].Fact.Args), maxArity)
		}
		buf = derivedKey(buf[:0], 0, ds[i].Fact)
		h := maphash.Bytes(seed, buf)
		j, ok := first[h]
		inSpill := false
		if ok && !factEqual(ds[j].Fact, ds[i].Fact) {
			if spill == nil {
				spill = make(map[string]int32)
			}
			j, ok = spill[string(buf)]
			inSpill = true
		}
		if ok && ds[i].Confidence <= ds[j].Confidence {
			continue
		}
		if ok {
			keep[j] = false
		}
		keep[i] = true
		if inSpill {
			spill[string(buf)] = int32(i)
		} else {
			first[h] = int32(i)
		}
	}
	idx := make([]int, 0, len(first))
	for i, k := range keep {
		if k {
			idx = append(idx, i)
		}
	}
	return idx, nil
}

func factEqual(a, b Fact) bool { return a.Rel == b.Rel && slices.Equal(a.Args, b.Args) }

// cloneFact copies f; empty argument lists become nil.
func cloneFact(f Fact) Fact {
	if len(f.Args) == 0 {
		return Fact{Rel: f.Rel}
	}
	return Fact{Rel: f.Rel, Args: slices.Clone(f.Args)}
}

// cloneDerived deep-copies d, normalising empty slices to nil.
func cloneDerived(d Derived) Derived {
	out := Derived{Fact: cloneFact(d.Fact), Confidence: d.Confidence, Prov: Provenance{Rule: d.Prov.Rule}}
	if len(d.Prov.Body) > 0 {
		out.Prov.Body = make([]Fact, len(d.Prov.Body))
		for i, f := range d.Prov.Body {
			out.Prov.Body[i] = cloneFact(f)
		}
	}
	return out
}

// snapBuilder collects binary edges per relation, in (relation, subject,
// object) order, and turns them into a Snapshot.
type snapBuilder struct {
	nsym  int
	rels  []ID       // relations in increasing id order
	edges [][]uint32 // per relation: s0, o0, s1, o1, ... sorted by (s, o)
}

// build renumbers entities densely and builds Out and In CSRs.
func (sb *snapBuilder) build(ctx context.Context) (*Snapshot, error) {
	n := sb.nsym
	for _, es := range sb.edges {
		for _, id := range es {
			n = max(n, int(id)+1)
		}
	}
	index := make([]int32, n)
	for _, es := range sb.edges {
		for _, id := range es {
			index[id] = 1
		}
	}
	snap := &Snapshot{}
	for id, v := range index {
		if v != 0 {
			index[id] = int32(len(snap.Entities))
			snap.Entities = append(snap.Entities, ID(id))
		} else {
			index[id] = -1
		}
	}
	nE := len(snap.Entities)
	snap.Relations = sb.rels
	snap.Out = make([]CSR, len(sb.rels))
	snap.In = make([]CSR, len(sb.rels))
	facts := 0
	for _, es := range sb.edges {
		facts += len(es) / 2
	}
	allDense := csr.AllDense(len(sb.rels), nE, facts)
	for r, es := range sb.edges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m := len(es) / 2
		if m > math.MaxInt32 {
			// Row pointers and edge ids within one relation are 32-bit.
			return nil, fmt.Errorf("store: snapshot: relation %d has %d facts; at most %d per relation are supported", sb.rels[r], m, math.MaxInt32)
		}
		subs, objs := make([]int32, m), make([]int32, m)
		for k := range m {
			subs[k], objs[k] = index[es[2*k]], index[es[2*k+1]]
		}
		out, in := csr.Adjacency(nE, subs, objs, allDense)
		snap.Out[r], snap.In[r] = out, in
	}
	return snap, nil
}
