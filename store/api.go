package store

import (
	"context"
	"errors"
	"iter"

	"github.com/drumql/drumql/internal/csr"
)

// ID is a dictionary-encoded symbol: an entity, a relation name or a constant.
// Ids are dense, assigned in order of first appearance, and stable for the life
// of a database.
type ID = uint32

// Fact is a ground atom: a relation applied to symbol arguments. Binary facts
// (len(Args) == 2, subject then object) are the knowledge graph; unary and
// n-ary facts come from Datalog programs.
type Fact struct {
	Rel  ID
	Args []ID
}

// Triple is a binary fact in the order of the DRUM files: subject (head),
// relation, object (tail).
type Triple struct {
	S, R, O ID
}

// NamedTriple is a triple before dictionary encoding, as read from a file.
type NamedTriple struct {
	S, R, O string
}

// NamedFact is an n-ary fact before dictionary encoding.
type NamedFact struct {
	Rel  string
	Args []string
}

// Batch is everything one load writes, atomically. Graph triples become base
// facts; Splits keeps named lists of triples in file order (DRUM's "facts",
// "train", "valid", "test"); only the triples also listed in Graph are part of
// the graph. Symbols lists names to intern even when no fact uses them (for
// example the entities.txt of a dataset), in order.
type Batch struct {
	Symbols []string
	Graph   []NamedTriple
	Facts   []NamedFact
	Splits  map[string][]NamedTriple
}

// LoadStats reports what a load changed.
type LoadStats struct {
	NewSymbols int // symbols added to the dictionary
	NewFacts   int // base facts that were not already present
	Skipped    int // base facts already present (loading twice changes nothing)
	Splits     map[string]int
}

// RetractStats reports what a retraction changed.
type RetractStats struct {
	Removed int // base facts removed
	Missing int // facts named that were not present, or named unknown symbols
}

// RelationStats is the per-relation count of base and derived facts.
type RelationStats struct {
	Rel     ID
	Name    string
	Arity   int
	Base    int
	Derived int
}

// Derived is a fact produced by the reasoner, with the confidence of its best
// derivation and that derivation's provenance.
type Derived struct {
	Fact       Fact
	Confidence float32
	Prov       Provenance
}

// Provenance records the best derivation of a derived fact: an opaque rule
// reference chosen by the reasoner and the body facts (base or derived) it used.
type Provenance struct {
	Rule string
	Body []Fact
}

// MaxChangeLog is the most base facts the change log of a store holds (see
// MaterialState): when more change, the log is dropped and Overflow set.
const MaxChangeLog = 1 << 20

// BaseChange is a base fact added or removed since the derived facts were
// last written with a record (see Materialised).
type BaseChange struct {
	Fact  Fact
	Added bool // false: removed
}

// MaterialState is what the store knows about its derived facts.
type MaterialState struct {
	// Program is the opaque record stored with the derived facts by
	// ReplaceDerivedRecord or UpdateDerived (the reasoner's description of
	// the program it materialised); nil when the derived facts were
	// written without one (ReplaceDerived, ReplaceDerivedSeq,
	// ClearDerived) or there are none. An empty record is an empty,
	// non-nil slice.
	Program []byte
	// Changes are the base facts whose presence changed since that write,
	// one entry per fact (its latest change), sorted by fact key order:
	// relation, then arity, then arguments. A fact added and removed again
	// is logged as removed, one removed and added again as added, whether
	// or not the derived facts used it. Changes is empty when Program is
	// nil: no log is kept then.
	Changes []BaseChange
	// Overflow is set when more than MaxChangeLog facts changed: Changes is
	// then empty and the record cannot be brought up to date incrementally.
	Overflow bool
}

// DerivedUpdate is an incremental change of the derived facts.
type DerivedUpdate struct {
	Program []byte    // the new record (replaces the old one); nil: none
	Put     []Derived // derived facts added, or replacing the stored fact with the same Fact
	Delete  []Fact    // derived facts removed (absent ones are ignored)
	// Renames maps provenance rule references to new ones: every stored
	// fact whose Prov.Rule is a key gets the value instead (all at once, so
	// that references can trade places), before Put and Delete apply. The
	// reasoner renames the references of rules and facts that moved in
	// their file, which leaves the facts they derived as they are.
	Renames map[string]string
}

// Store is the triple store: the Badger-backed database and its in-memory
// twin implement it, and store/storetest checks that they agree.
//
// Scans yield facts sorted by their key (relation, then arguments in index
// order); yielded values are copies the caller may keep.
type Store interface {
	// Load interns the batch's symbols and writes its facts and splits,
	// atomically: either all of it lands or the store is unchanged.
	// progress, if not nil, is called with the number of items written so far.
	// When the derived facts have a record, the facts it adds (not those
	// already present) are logged as changes, atomically with the load.
	Load(ctx context.Context, b *Batch, progress func(done, total int)) (LoadStats, error)

	// Retract removes the base facts of b.Graph and b.Facts, atomically:
	// either all of them go or the store is unchanged. Facts that are not
	// present (or repeated in b), or that name a symbol the dictionary
	// lacks, count as Missing. b.Symbols and b.Splits are ignored: the
	// dictionary keeps its symbols, splits are unchanged, and so are the
	// derived facts. When the derived facts have a record, each removed
	// fact is logged as a change, atomically with the retraction.
	Retract(ctx context.Context, b *Batch) (RetractStats, error)

	// Lookup returns the id of a name.
	Lookup(name string) (ID, bool, error)
	// Intern returns the id of name, adding it to the dictionary if absent.
	Intern(name string) (ID, error)
	// Name returns the name of an id.
	Name(id ID) (string, error)
	// NumSymbols is the size of the dictionary (ids are 0..NumSymbols-1).
	NumSymbols() (int, error)

	// Relations lists every relation with base or derived facts, sorted by name.
	Relations() ([]RelationStats, error)
	// Scan yields the base facts of a relation.
	Scan(rel ID) iter.Seq2[Fact, error]
	// ScanFirst yields the base facts of rel whose first argument is a
	// (the subject of a binary fact).
	ScanFirst(rel, a ID) iter.Seq2[Fact, error]
	// ScanObject yields the binary base facts of rel whose object is o.
	ScanObject(rel, o ID) iter.Seq2[Fact, error]
	// Has reports whether the base fact exists.
	Has(f Fact) (bool, error)
	// Count is the number of base facts of a relation.
	Count(rel ID) (int, error)

	// Splits lists the named splits, sorted.
	Splits() ([]string, error)
	// Split yields the triples of a named split in file order.
	Split(name string) iter.Seq2[Triple, error]

	// ReplaceDerived atomically replaces all derived facts by ds: on error or
	// cancellation the previous derived facts stay. Base facts are untouched.
	ReplaceDerived(ctx context.Context, ds []Derived) error
	// ReplaceDerivedSeq is ReplaceDerived for facts that are not held in
	// memory all at once: it writes the facts that facts yields as they
	// come, with the same atomicity (on error, cancellation, or an error
	// yielded by facts, which it returns, the previous derived facts stay).
	// A yielded Derived may share its slices with the next one: the store
	// copies what it keeps. Each fact must be yielded at most once
	// (ReplaceDerived deduplicates; this does not). size is the sum of
	// DerivedSize over the facts, for the free-space check (0 if unknown).
	ReplaceDerivedSeq(ctx context.Context, size int64, facts iter.Seq2[Derived, error]) error
	// ReplaceDerivedRecord is ReplaceDerivedSeq that stores program as the
	// record of the new derived facts and clears the change log, in the
	// same atomic step: afterwards Materialised reports Program equal to
	// program, no Changes and no Overflow, and base facts loaded or
	// retracted from then on are logged. A nil program stores no record,
	// as ReplaceDerivedSeq does. ReplaceDerived, ReplaceDerivedSeq and
	// ClearDerived leave the derived facts without a record (and the store
	// stops logging changes).
	ReplaceDerivedRecord(ctx context.Context, size int64, program []byte, facts iter.Seq2[Derived, error]) error
	// UpdateDerived applies u to the visible derived facts: the facts of
	// u.Delete go, those of u.Put are added or replace the stored fact with
	// the same Fact. A fact in both is put; a fact put twice gets the
	// later derivation. u.Program becomes the record (none if nil) and the
	// change log is cleared. All of it is atomic: on error or cancellation
	// the store has the old derived facts, record and log. A small update
	// costs in proportion to its size, not to the derived facts stored.
	UpdateDerived(ctx context.Context, u DerivedUpdate) error
	// ClearDerived drops all derived facts.
	ClearDerived() error
	// ScanDerived yields the derived facts of a relation.
	ScanDerived(rel ID) iter.Seq2[Derived, error]
	// GetDerived returns the derived fact f, if present.
	GetDerived(f Fact) (Derived, bool, error)
	// Materialised returns the record of the derived facts and the base
	// facts changed since it was written. It waits for a write in flight.
	Materialised() (MaterialState, error)

	// Snapshot copies the binary base facts into compact CSR arrays.
	Snapshot(ctx context.Context) (*Snapshot, error)

	// Close releases the store. Further calls return ErrClosed.
	Close() error
}

// Snapshot is an immutable in-memory copy of the binary base graph for the
// miner and the reasoner. Entities are renumbered densely (0..len(Entities)-1,
// in increasing symbol id); relations likewise.
type Snapshot struct {
	Entities  []ID // dense entity index -> symbol id
	Relations []ID // dense relation index -> symbol id
	// Out[r] maps subject index -> object indices (sorted); In[r] maps object
	// index -> subject indices (sorted), with Edge giving the position of each
	// entry in Out[r].Col (the edge id).
	Out []CSR
	In  []CSR
}

// CSR is one relation's adjacency in a Snapshot: dense (a row pointer per
// entity) or hypersparse (only the rows with columns), as
// csr.HypersparseRatio decides. Read it with Span, Row, Degree, Stored and
// RowAt, which work in both layouts.
type CSR = csr.Matrix

// Errors returned by stores.
var (
	ErrClosed       = errors.New("store: closed")
	ErrInUse        = errors.New("store: database is in use by another process")
	ErrNotStore     = errors.New("store: not a drumql store")
	ErrNewerFormat  = errors.New("store: written by a newer drumql format version")
	ErrIncomplete   = errors.New("store: an interrupted load left an incomplete generation")
	ErrUnknownSplit = errors.New("store: unknown split")
)
