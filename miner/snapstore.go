package miner

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"

	"github.com/drumql/drumql/store"
)

// SnapshotStore is a snapshot file read as a read-only store of its binary
// base facts, symbols and splits: what choosing the aggregation on the valid
// split and the coverage line read (the filter, the rule engine over the
// graph's CSR snapshot, the splits), so that mining from a snapshot file
// writes the same file as mining the store it was taken from. It has no
// derived facts, and writing to it is an error ([ErrSnapshotReadOnly]).
type SnapshotStore struct {
	*SnapshotFile
	snap  *store.Snapshot
	ids   map[string]store.ID
	nsym  int
	rels  []store.RelationStats // sorted by name
	dense map[store.ID]int      // relation id -> index in snap.Relations
	ents  map[store.ID]int32    // entity id -> index in snap.Entities
}

var _ store.Store = (*SnapshotStore)(nil)

// ErrSnapshotReadOnly is the error of writing to a SnapshotStore.
var ErrSnapshotReadOnly = errors.New("a snapshot file is read-only")

// NewSnapshotStore indexes f's symbols and relations.
func NewSnapshotStore(ctx context.Context, f *SnapshotFile) (*SnapshotStore, error) {
	snap, err := f.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	s := &SnapshotStore{SnapshotFile: f, snap: snap, ids: map[string]store.ID{}, dense: map[store.ID]int{}, ents: map[store.ID]int32{}}
	for id, name := range f.Symbols() {
		s.ids[name] = id
		s.nsym = max(s.nsym, int(id)+1)
	}
	for i, id := range snap.Entities {
		s.ents[id] = int32(i)
	}
	for r, id := range snap.Relations {
		name, err := f.Name(id)
		if err != nil {
			return nil, err
		}
		s.dense[id] = r
		s.rels = append(s.rels, store.RelationStats{Rel: id, Name: name, Arity: 2, Base: len(snap.Out[r].Col)})
	}
	slices.SortFunc(s.rels, func(a, b store.RelationStats) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// Load implements store.Store: an error.
func (s *SnapshotStore) Load(context.Context, *store.Batch, func(int, int)) (store.LoadStats, error) {
	return store.LoadStats{}, ErrSnapshotReadOnly
}

// Lookup implements store.Store.
func (s *SnapshotStore) Lookup(name string) (store.ID, bool, error) {
	id, ok := s.ids[name]
	return id, ok, nil
}

// Intern implements store.Store: the id of a known name, else an error.
func (s *SnapshotStore) Intern(name string) (store.ID, error) {
	if id, ok := s.ids[name]; ok {
		return id, nil
	}
	return 0, ErrSnapshotReadOnly
}

// NumSymbols implements store.Store.
func (s *SnapshotStore) NumSymbols() (int, error) { return s.nsym, nil }

// Relations implements store.Store.
func (s *SnapshotStore) Relations() ([]store.RelationStats, error) { return slices.Clone(s.rels), nil }

// facts yields the facts of relation rel whose subject is in [lo, hi) (dense
// entity indices), and of those only the ones with object o when o >= 0.
func (s *SnapshotStore) facts(rel store.ID, lo, hi int32, o int32) iter.Seq2[store.Fact, error] {
	return func(yield func(store.Fact, error) bool) {
		r, ok := s.dense[rel]
		if !ok {
			return
		}
		out := &s.snap.Out[r]
		for x := lo; x < hi; x++ {
			for _, y := range out.Row(x) {
				if o >= 0 && y != o {
					continue
				}
				if !yield(store.Fact{Rel: rel, Args: []store.ID{s.snap.Entities[x], s.snap.Entities[y]}}, nil) {
					return
				}
			}
		}
	}
}

// Scan implements store.Store.
func (s *SnapshotStore) Scan(rel store.ID) iter.Seq2[store.Fact, error] {
	return s.facts(rel, 0, int32(len(s.snap.Entities)), -1)
}

// ScanFirst implements store.Store.
func (s *SnapshotStore) ScanFirst(rel, a store.ID) iter.Seq2[store.Fact, error] {
	x, ok := s.ents[a]
	if !ok {
		return func(func(store.Fact, error) bool) {}
	}
	return s.facts(rel, x, x+1, -1)
}

// ScanObject implements store.Store.
func (s *SnapshotStore) ScanObject(rel, o store.ID) iter.Seq2[store.Fact, error] {
	return func(yield func(store.Fact, error) bool) {
		r, ok := s.dense[rel]
		y, ok2 := s.ents[o]
		if !ok || !ok2 {
			return
		}
		for _, x := range s.snap.In[r].Row(y) {
			if !yield(store.Fact{Rel: rel, Args: []store.ID{s.snap.Entities[x], o}}, nil) {
				return
			}
		}
	}
}

// Has implements store.Store.
func (s *SnapshotStore) Has(f store.Fact) (bool, error) {
	if len(f.Args) != 2 {
		return false, nil
	}
	r, ok := s.dense[f.Rel]
	x, ok1 := s.ents[f.Args[0]]
	y, ok2 := s.ents[f.Args[1]]
	if !ok || !ok1 || !ok2 {
		return false, nil
	}
	_, found := slices.BinarySearch(s.snap.Out[r].Row(x), y)
	return found, nil
}

// Count implements store.Store.
func (s *SnapshotStore) Count(rel store.ID) (int, error) {
	if r, ok := s.dense[rel]; ok {
		return len(s.snap.Out[r].Col), nil
	}
	return 0, nil
}

// ReplaceDerived implements store.Store: an error.
func (s *SnapshotStore) ReplaceDerived(context.Context, []store.Derived) error {
	return ErrSnapshotReadOnly
}

// ReplaceDerivedSeq implements store.Store: an error.
func (s *SnapshotStore) ReplaceDerivedSeq(context.Context, int64, iter.Seq2[store.Derived, error]) error {
	return ErrSnapshotReadOnly
}

// ClearDerived implements store.Store: an error.
func (s *SnapshotStore) ClearDerived() error { return ErrSnapshotReadOnly }

// ReplaceDerivedRecord implements store.Store: an error.
func (s *SnapshotStore) ReplaceDerivedRecord(context.Context, int64, []byte, iter.Seq2[store.Derived, error]) error {
	return ErrSnapshotReadOnly
}

// UpdateDerived implements store.Store: an error.
func (s *SnapshotStore) UpdateDerived(context.Context, store.DerivedUpdate) error {
	return ErrSnapshotReadOnly
}

// Retract implements store.Store: an error.
func (s *SnapshotStore) Retract(context.Context, *store.Batch) (store.RetractStats, error) {
	return store.RetractStats{}, ErrSnapshotReadOnly
}

// Materialised implements store.Store: a snapshot has no derived facts.
func (s *SnapshotStore) Materialised() (store.MaterialState, error) {
	return store.MaterialState{}, nil
}

// ScanDerived implements store.Store: a snapshot has no derived facts.
func (s *SnapshotStore) ScanDerived(store.ID) iter.Seq2[store.Derived, error] {
	return func(func(store.Derived, error) bool) {}
}

// GetDerived implements store.Store: a snapshot has no derived facts.
func (s *SnapshotStore) GetDerived(store.Fact) (store.Derived, bool, error) {
	return store.Derived{}, false, nil
}

// Close implements store.Store.
func (s *SnapshotStore) Close() error { return nil }
