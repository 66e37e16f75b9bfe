package souffle

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/drumql/drumql/store"
)

// inputs holds the facts of the .input files for an evaluation: a symbol
// dictionary and, per relation, its tuples as flat columns of symbol ids.
// It is the store.Store that `drumql run` evaluates over, read-only: the
// evaluator reads its relations once (Scan) into its own columns, so the
// facts are held once as ids, not as the names, keys and sorted copies of
// a store.Mem.
//
// The ids and the order of the tuples are those a store.Mem loaded with
// the same facts in the same order would have: names are numbered in
// order of first appearance (a relation's name when its first fact is
// added, then the fact's values), and a relation's tuples are scanned
// sorted by their ids, duplicates removed (seal). So the evaluation is the
// same as over the store, tuple for tuple.
type inputs struct {
	names []string
	ids   map[string]store.ID
	rels  map[store.ID]*inputRel
	// nums holds the ids of small natural numbers written canonically
	// (below maxDense): nums[v] is 1 + the id of v's name, or 0 when it
	// has none. Such a name is there, never in ids: a map of a million
	// names costs more to probe than the file costs to read, and more
	// memory than the names.
	nums []store.ID
}

// maxDense bounds the numbers inputs.nums caches.
const maxDense = 1 << 22

// inputRel is the facts of one relation: n tuples of arity ids each.
type inputRel struct {
	arity int
	n     int
	ids   []store.ID
	// released: the evaluator holds the tuples, dropped here
	// (inputs.release); reading them again is an error.
	released bool
}

func newInputs() *inputs {
	return &inputs{ids: map[string]store.ID{}, rels: map[store.ID]*inputRel{}}
}

// intern returns the id of name, numbering it when it is new; a new name
// must pass store.CheckName. name is copied when kept (the caller may
// pass a string that aliases a reused buffer).
func (in *inputs) intern(name []byte) (store.ID, error) {
	if v, ok := denseNatural(name); ok {
		return in.internDense(name, v)
	}
	if id, ok := in.ids[string(name)]; ok {
		return id, nil
	}
	id, err := in.add(name)
	if err == nil {
		in.ids[in.names[id]] = id
	}
	return id, err
}

// add numbers name, new, and returns its id.
func (in *inputs) add(name []byte) (store.ID, error) {
	s := string(name)
	if err := store.CheckName(s); err != nil {
		return 0, err
	}
	id := store.ID(len(in.names))
	in.names = append(in.names, s)
	return id, nil
}

// internNatural is intern for a name of canonicalDigits.
func (in *inputs) internNatural(name []byte) (store.ID, error) {
	if v, ok := denseNatural(name); ok {
		return in.internDense(name, v)
	}
	return in.intern(name)
}

// denseNatural returns the value of name when it is a natural number
// below maxDense written canonically (the names inputs.nums holds).
func denseNatural(name []byte) (uint64, bool) {
	if len(name) == 0 || len(name) > 7 || name[0] == '0' && len(name) > 1 {
		return 0, false
	}
	v := uint64(0)
	for _, b := range name {
		if b < '0' || b > '9' {
			return 0, false
		}
		v = v*10 + uint64(b-'0')
	}
	return v, v < maxDense
}

// internDense is intern for a name of denseNatural value v.
func (in *inputs) internDense(name []byte, v uint64) (store.ID, error) {
	if v < uint64(len(in.nums)) && in.nums[v] != 0 {
		return in.nums[v] - 1, nil
	}
	id, err := in.add(name)
	if err != nil {
		return 0, err
	}
	if v >= uint64(len(in.nums)) {
		grown := make([]store.ID, min(max(2*len(in.nums), int(v)+1, 1024), maxDense))
		copy(grown, in.nums)
		in.nums = grown
	}
	in.nums[v] = id + 1
	return id, nil
}

// lookup returns the id of name, if it has one.
func (in *inputs) lookup(name string) (store.ID, bool) {
	if v, ok := denseNatural([]byte(name)); ok {
		if v < uint64(len(in.nums)) && in.nums[v] != 0 {
			return in.nums[v] - 1, true
		}
		return 0, false
	}
	id, ok := in.ids[name]
	return id, ok
}

// relation returns the facts of relation name (interned on first use).
func (in *inputs) relation(name string, arity int) (*inputRel, error) {
	id, err := in.intern([]byte(name))
	if err != nil {
		return nil, err
	}
	r := in.rels[id]
	if r == nil {
		r = &inputRel{arity: arity}
		in.rels[id] = r
	}
	return r, nil
}

// seal sorts every relation's tuples by their ids and removes duplicates.
func (in *inputs) seal() {
	for _, r := range in.rels {
		r.seal()
	}
}

func (r *inputRel) seal() {
	switch r.arity {
	case 0:
		r.n = min(r.n, 1)
	case 1, 2:
		r.ids = compactTuples(radixSort(r.ids[:r.n*r.arity], r.arity), r.arity)
		r.n = len(r.ids) / r.arity
	default:
		a := r.arity
		perm := make([]int32, r.n)
		for i := range perm {
			perm[i] = int32(i)
		}
		row := func(i int32) []store.ID { return r.ids[int(i)*a : int(i)*a+a] }
		slices.SortFunc(perm, func(x, y int32) int { return slices.Compare(row(x), row(y)) })
		out := make([]store.ID, 0, len(r.ids))
		for k, i := range perm {
			if k > 0 && slices.Equal(row(perm[k-1]), row(i)) {
				continue
			}
			out = append(out, row(i)...)
		}
		r.ids, r.n = out, len(out)/a
	}
	r.ids = slices.Clip(r.ids)
}

// radixSort sorts the tuples of arity a (1 or 2) of ids by their values
// (least significant digit first, 11 bits a pass, the passes of digits
// every tuple shares skipped) and returns them: ids, or a buffer of its
// length. It sorts the column in place of a column of keys, so reading a
// million edges holds one buffer of their size beside them, not two.
func radixSort(ids []store.ID, a int) []store.ID {
	n := len(ids) / a
	key := func(x []store.ID, i int) uint64 {
		if a == 1 {
			return uint64(x[i])
		}
		return uint64(x[2*i])<<32 | uint64(x[2*i+1])
	}
	if n < 256 {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = key(ids, i)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if a == 1 {
				ids[i] = store.ID(k)
			} else {
				ids[2*i], ids[2*i+1] = store.ID(k>>32), store.ID(k)
			}
		}
		return ids
	}
	const bits = 11
	var or, and uint64 = 0, ^uint64(0)
	for i := range n {
		k := key(ids, i)
		or |= k
		and &= k
	}
	var buf []store.ID
	var count [1 << bits]int
	for shift := 0; shift < 64; shift += bits {
		if (or^and)>>shift&(1<<bits-1) == 0 {
			continue // every tuple has this digit
		}
		if buf == nil {
			buf = make([]store.ID, len(ids))
		}
		clear(count[:])
		for i := range n {
			count[key(ids, i)>>shift&(1<<bits-1)]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		if a == 1 {
			for _, v := range ids {
				d := uint64(v) >> shift & (1<<bits - 1)
				buf[count[d]] = v
				count[d]++
			}
		} else {
			for i := 0; i+1 < len(ids); i += 2 {
				x, y := ids[i], ids[i+1]
				d := (uint64(x)<<32 | uint64(y)) >> shift & (1<<bits - 1)
				j := 2 * count[d]
				buf[j], buf[j+1] = x, y
				count[d]++
			}
		}
		ids, buf = buf, ids
	}
	return ids
}

// compactTuples removes from the sorted tuples of arity a of ids those
// equal to the one before, in place, and returns what is left.
func compactTuples(ids []store.ID, a int) []store.ID {
	w := 0
	for i := 0; i < len(ids); i += a {
		if w > 0 && slices.Equal(ids[w-a:w], ids[i:i+a]) {
			continue
		}
		copy(ids[w:w+a], ids[i:i+a])
		w += a
	}
	return ids[:w]
}

// tuple returns tuple i of r (not to be changed).
func (r *inputRel) tuple(i int) []store.ID {
	o := i * r.arity
	return r.ids[o : o+r.arity : o+r.arity]
}

// batch returns the facts as a batch that loads a store with the same
// ids: every name, in id order, then the facts.
func (in *inputs) batch() *store.Batch {
	b := &store.Batch{Symbols: in.names}
	for _, rel := range slices.Sorted(maps.Keys(in.rels)) {
		r := in.rels[rel]
		for i := range r.n {
			args := make([]string, r.arity)
			for j, id := range r.tuple(i) {
				args[j] = in.names[id]
			}
			b.Facts = append(b.Facts, store.NamedFact{Rel: in.names[rel], Args: args})
		}
	}
	return b
}

var errInputsReadOnly = fmt.Errorf("run: the input facts: %w", store.ErrReadOnly)

// Load implements store.Store: the inputs are read-only.
func (in *inputs) Load(context.Context, *store.Batch, func(done, total int)) (store.LoadStats, error) {
	return store.LoadStats{}, errInputsReadOnly
}

// Retract implements store.Store: the inputs are read-only.
func (in *inputs) Retract(context.Context, *store.Batch) (store.RetractStats, error) {
	return store.RetractStats{}, errInputsReadOnly
}

// Lookup implements store.Store.
func (in *inputs) Lookup(name string) (store.ID, bool, error) {
	id, ok := in.lookup(name)
	return id, ok, nil
}

// Intern implements store.Store: only names already known have ids.
func (in *inputs) Intern(name string) (store.ID, error) {
	if id, ok := in.lookup(name); ok {
		return id, nil
	}
	return 0, errInputsReadOnly
}

// Name implements store.Store.
func (in *inputs) Name(id store.ID) (string, error) {
	if int(id) >= len(in.names) {
		return "", fmt.Errorf("run: the input facts: name of %d: %w", id, store.ErrUnknownID)
	}
	return in.names[id], nil
}

// NumSymbols implements store.Store.
func (in *inputs) NumSymbols() (int, error) { return len(in.names), nil }

// Relations implements store.Store: the relations with facts, by name.
func (in *inputs) Relations() ([]store.RelationStats, error) {
	var out []store.RelationStats
	for rel, r := range in.rels {
		if r.n > 0 {
			out = append(out, store.RelationStats{Rel: rel, Name: in.names[rel], Arity: r.arity, Base: r.n})
		}
	}
	slices.SortFunc(out, func(a, b store.RelationStats) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// facts yields the tuples of rel that keep says to keep.
func (in *inputs) facts(rel store.ID, keep func(args []store.ID) bool) iter.Seq2[store.Fact, error] {
	return func(yield func(store.Fact, error) bool) {
		r := in.rels[rel]
		if r == nil {
			return
		}
		if r.released {
			yield(store.Fact{}, in.errReleased(rel))
			return
		}
		for i := range r.n {
			t := r.tuple(i)
			if (keep == nil || keep(t)) && !yield(store.Fact{Rel: rel, Args: t}, nil) {
				return
			}
		}
	}
}

// release drops the tuples of rel, which the evaluator has read into its
// own columns (reasoner.Options.Loaded): it copies every input relation
// it reads once, and reach-1m's 8 MB of edges were held twice for the
// whole evaluation.
func (in *inputs) release(rel store.ID) {
	if r := in.rels[rel]; r != nil {
		r.ids, r.released = nil, true
	}
}

// errReleased is the error of reading the facts of rel after release.
func (in *inputs) errReleased(rel store.ID) error {
	return fmt.Errorf("run: the input facts of %s: read once, no longer held", in.names[rel])
}

// Scan implements store.Store.
func (in *inputs) Scan(rel store.ID) iter.Seq2[store.Fact, error] { return in.facts(rel, nil) }

// ScanFirst implements store.Store.
func (in *inputs) ScanFirst(rel, a store.ID) iter.Seq2[store.Fact, error] {
	return in.facts(rel, func(t []store.ID) bool { return len(t) > 0 && t[0] == a })
}

// ScanObject implements store.Store.
func (in *inputs) ScanObject(rel, o store.ID) iter.Seq2[store.Fact, error] {
	return in.facts(rel, func(t []store.ID) bool { return len(t) == 2 && t[1] == o })
}

// Has implements store.Store.
func (in *inputs) Has(f store.Fact) (bool, error) {
	r := in.rels[f.Rel]
	if r == nil || len(f.Args) != r.arity {
		return false, nil
	}
	if r.released {
		return false, in.errReleased(f.Rel)
	}
	_, ok := sort.Find(r.n, func(i int) int { return slices.Compare(f.Args, r.tuple(i)) })
	return ok, nil
}

// Count implements store.Store.
func (in *inputs) Count(rel store.ID) (int, error) {
	if r := in.rels[rel]; r != nil {
		return r.n, nil
	}
	return 0, nil
}

// Splits implements store.Store: there are none.
func (in *inputs) Splits() ([]string, error) { return nil, nil }

// Split implements store.Store: there are none.
func (in *inputs) Split(name string) iter.Seq2[store.Triple, error] {
	return func(yield func(store.Triple, error) bool) {
		yield(store.Triple{}, fmt.Errorf("run: the input facts: split %q: %w", name, store.ErrUnknownSplit))
	}
}

// ReplaceDerived implements store.Store: the inputs are read-only.
func (in *inputs) ReplaceDerived(context.Context, []store.Derived) error { return errInputsReadOnly }

// ReplaceDerivedSeq implements store.Store: the inputs are read-only.
func (in *inputs) ReplaceDerivedSeq(context.Context, int64, iter.Seq2[store.Derived, error]) error {
	return errInputsReadOnly
}

// ReplaceDerivedRecord implements store.Store: the inputs are read-only.
func (in *inputs) ReplaceDerivedRecord(context.Context, int64, []byte, iter.Seq2[store.Derived, error]) error {
	return errInputsReadOnly
}

// UpdateDerived implements store.Store: the inputs are read-only.
func (in *inputs) UpdateDerived(context.Context, store.DerivedUpdate) error { return errInputsReadOnly }

// ClearDerived implements store.Store: the inputs are read-only.
func (in *inputs) ClearDerived() error { return errInputsReadOnly }

// ScanDerived implements store.Store: there are no derived facts.
func (in *inputs) ScanDerived(store.ID) iter.Seq2[store.Derived, error] {
	return func(func(store.Derived, error) bool) {}
}

// GetDerived implements store.Store: there are no derived facts.
func (in *inputs) GetDerived(store.Fact) (store.Derived, bool, error) {
	return store.Derived{}, false, nil
}

// Materialised implements store.Store: no derived facts, no record.
func (in *inputs) Materialised() (store.MaterialState, error) { return store.MaterialState{}, nil }

// Snapshot implements store.Store: not for the inputs (a goal-directed
// run reads them through a store.Mem, batch).
func (in *inputs) Snapshot(context.Context) (*store.Snapshot, error) {
	return nil, fmt.Errorf("run: the input facts: no snapshot: %w", store.ErrReadOnly)
}

// Close implements store.Store.
func (in *inputs) Close() error { return nil }

var _ store.Store = (*inputs)(nil)
