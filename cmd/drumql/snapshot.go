package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// snapshotCmd is drumql snapshot.
type snapshotCmd struct {
	Out string `short:"o" required:"" placeholder:"FILE" help:"Write the snapshot to FILE."`
}

// Help is shown under the command's usage.
func (snapshotCmd) Help() string {
	return `Writes what mining reads from the store (the graph's facts in CSR order, the
names of its symbols and every split) as one versioned, checksummed file.
'drumql mine --snapshot FILE' trains from it without a store and gives the
same model, rules and aggregation (chosen on the file's valid split) as
mining the store; ship the file to the machines that mine.

Examples:
  drumql snapshot --out family.snap
  drumql mine --snapshot family.snap --out family.dl`
}

// Run writes the snapshot file: the data goes to a temporary file beside
// --out as it is produced, which is synced and renamed over --out once
// whole, so that a killed or failing run leaves --out as it was.
func (c *snapshotCmd) Run(e *env) error {
	st, err := e.openStore(true)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	f, err := atomicfile.Create(c.Out)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer f.Abort()
	w := &stepWriter{w: f}
	if err := miner.WriteSnapshot(e.ctx, w, st); err != nil {
		return err
	}
	snapshotStep("snapshot:written")
	if err := f.Commit(); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	snapshotStep("snapshot:renamed")
	if !e.cli.Quiet {
		fmt.Fprintf(e.stderr, "wrote a snapshot of %s to %s (%d bytes) in %s\n", e.cli.DB, c.Out, w.n, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// testHookSnapshotStep, when not nil, is called at each step of writing a
// snapshot file: snapshot:writing after each piece of data reached the
// temporary file, snapshot:written once all of it has (not synced, not
// renamed), snapshot:renamed once the file replaced --out (synced). Only
// tests set it, to kill the process there.
var testHookSnapshotStep func(step string)

// snapshotStep reports a step of writing a snapshot file.
func snapshotStep(step string) {
	if testHookSnapshotStep != nil {
		testHookSnapshotStep(step)
	}
}

// stepWriter passes writes on to w, counting the bytes written, and reports
// the step snapshot:writing after each.
type stepWriter struct {
	w io.Writer
	n int64
}

// Write writes p to w.
func (s *stepWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.n += int64(n)
	if err == nil {
		snapshotStep("snapshot:writing")
	}
	return n, err
}

// mineSource opens what drumql mine trains from: the snapshot file of
// --snapshot (st is then the file read as a store, see snapStore), or the
// store. from names it for the header.
func (c *mineCmd) mineSource(e *env) (src miner.GraphSource, st store.Store, from string, err error) {
	if c.Snapshot == "" {
		st, err := e.openStore(true)
		if err != nil {
			return nil, nil, "", err
		}
		return st, st, e.cli.DB, nil
	}
	if c.Eval {
		return nil, nil, "", inputErr(fmt.Errorf("mine: --eval needs the store (its filter reads every base fact); run 'drumql eval --model' on the store instead"))
	}
	f, err := miner.ReadSnapshotFile(c.Snapshot)
	if err != nil {
		return nil, nil, "", inputErr(err)
	}
	ss, err := newSnapStore(e.ctx, f)
	if err != nil {
		return nil, nil, "", err
	}
	return f, ss, c.Snapshot, nil
}

// snapStore is a snapshot file read as a read-only store of its binary base
// facts, symbols and splits: what choosing the aggregation on the valid
// split and the coverage line read (the filter, the rule engine over the
// graph's CSR snapshot, the splits), so that mining from a snapshot file
// writes the same file as mining the store it was taken from. It has no
// derived facts, and writing to it is an error.
type snapStore struct {
	*miner.SnapshotFile
	snap  *store.Snapshot
	ids   map[string]store.ID
	nsym  int
	rels  []store.RelationStats // sorted by name
	dense map[store.ID]int      // relation id -> index in snap.Relations
	ents  map[store.ID]int32    // entity id -> index in snap.Entities
}

var _ store.Store = (*snapStore)(nil)

// errSnapshotReadOnly is the error of writing to a snapStore.
var errSnapshotReadOnly = errors.New("a snapshot file is read-only")

// newSnapStore indexes f's symbols and relations.
func newSnapStore(ctx context.Context, f *miner.SnapshotFile) (*snapStore, error) {
	snap, err := f.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	s := &snapStore{SnapshotFile: f, snap: snap, ids: map[string]store.ID{}, dense: map[store.ID]int{}, ents: map[store.ID]int32{}}
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
func (s *snapStore) Load(context.Context, *store.Batch, func(int, int)) (store.LoadStats, error) {
	return store.LoadStats{}, errSnapshotReadOnly
}

// Lookup implements store.Store.
func (s *snapStore) Lookup(name string) (store.ID, bool, error) {
	id, ok := s.ids[name]
	return id, ok, nil
}

// Intern implements store.Store: the id of a known name, else an error.
func (s *snapStore) Intern(name string) (store.ID, error) {
	if id, ok := s.ids[name]; ok {
		return id, nil
	}
	return 0, errSnapshotReadOnly
}

// NumSymbols implements store.Store.
func (s *snapStore) NumSymbols() (int, error) { return s.nsym, nil }

// Relations implements store.Store.
func (s *snapStore) Relations() ([]store.RelationStats, error) { return slices.Clone(s.rels), nil }

// facts yields the facts of relation rel whose subject is in [lo, hi) (dense
// entity indices), and of those only the ones with object o when o >= 0.
func (s *snapStore) facts(rel store.ID, lo, hi int32, o int32) iter.Seq2[store.Fact, error] {
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
func (s *snapStore) Scan(rel store.ID) iter.Seq2[store.Fact, error] {
	return s.facts(rel, 0, int32(len(s.snap.Entities)), -1)
}

// ScanFirst implements store.Store.
func (s *snapStore) ScanFirst(rel, a store.ID) iter.Seq2[store.Fact, error] {
	x, ok := s.ents[a]
	if !ok {
		return func(func(store.Fact, error) bool) {}
	}
	return s.facts(rel, x, x+1, -1)
}

// ScanObject implements store.Store.
func (s *snapStore) ScanObject(rel, o store.ID) iter.Seq2[store.Fact, error] {
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
func (s *snapStore) Has(f store.Fact) (bool, error) {
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
func (s *snapStore) Count(rel store.ID) (int, error) {
	if r, ok := s.dense[rel]; ok {
		return len(s.snap.Out[r].Col), nil
	}
	return 0, nil
}

// ReplaceDerived implements store.Store: an error.
func (s *snapStore) ReplaceDerived(context.Context, []store.Derived) error {
	return errSnapshotReadOnly
}

// ReplaceDerivedSeq implements store.Store: an error.
func (s *snapStore) ReplaceDerivedSeq(context.Context, int64, iter.Seq2[store.Derived, error]) error {
	return errSnapshotReadOnly
}

// ClearDerived implements store.Store: an error.
func (s *snapStore) ClearDerived() error { return errSnapshotReadOnly }

// ReplaceDerivedRecord implements store.Store: an error.
func (s *snapStore) ReplaceDerivedRecord(context.Context, int64, []byte, iter.Seq2[store.Derived, error]) error {
	return errSnapshotReadOnly
}

// UpdateDerived implements store.Store: an error.
func (s *snapStore) UpdateDerived(context.Context, store.DerivedUpdate) error {
	return errSnapshotReadOnly
}

// Retract implements store.Store: an error.
func (s *snapStore) Retract(context.Context, *store.Batch) (store.RetractStats, error) {
	return store.RetractStats{}, errSnapshotReadOnly
}

// Materialised implements store.Store: a snapshot has no derived facts.
func (s *snapStore) Materialised() (store.MaterialState, error) { return store.MaterialState{}, nil }

// ScanDerived implements store.Store: a snapshot has no derived facts.
func (s *snapStore) ScanDerived(store.ID) iter.Seq2[store.Derived, error] {
	return func(func(store.Derived, error) bool) {}
}

// GetDerived implements store.Store: a snapshot has no derived facts.
func (s *snapStore) GetDerived(store.Fact) (store.Derived, bool, error) {
	return store.Derived{}, false, nil
}

// Close implements store.Store.
func (s *snapStore) Close() error { return nil }
