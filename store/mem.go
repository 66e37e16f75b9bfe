package store

import (
	"context"
	"iter"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Mem is the in-memory twin of DB: the same Store semantics (dense ids,
// sorted scans, atomic loads, atomic derived replacement) without
// persistence. Its methods are safe for concurrent use.
type Mem struct {
	wmu sync.Mutex // serialises writers

	mu      sync.RWMutex // guards the fields below
	closed  bool
	dict    dict
	base    map[relArity]*factSet
	derived map[relArity]*derivedSet
	splits  map[string][]Triple

	record   []byte          // the derived facts' record; nil: none
	changes  map[string]bool // the change log: appendFactSuffix key -> added
	overflow bool            // the change log overflowed
	logCap   int             // the change log's cap; 0 means MaxChangeLog (tests lower it)
}

// factSet holds the base facts of one relation and arity. Keys are the
// arguments encoded as 4-byte big-endian ids, so string order is key order.
// The sorted slices are replaced, never modified, so readers may keep them.
type factSet struct {
	keys   map[string]struct{}
	sorted []string
	rev    []string // binary facts only: object then subject
}

type derivedSet struct {
	sorted []string
	vals   map[string]Derived
}

var _ Store = (*Mem)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *Mem {
	return &Mem{
		dict:    newDict(),
		base:    make(map[relArity]*factSet),
		derived: make(map[relArity]*derivedSet),
		splits:  make(map[string][]Triple),
	}
}

func argsKey(args []ID) string {
	b := make([]byte, 0, 4*len(args))
	for _, a := range args {
		b = putID(b, a)
	}
	return string(b)
}

func keyArgs(k string) []ID { return decodeArgs([]byte(k), len(k)/4) }

func (m *Mem) open() error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return ErrClosed
	}
	return nil
}

// Load implements Store.
func (m *Mem) Load(ctx context.Context, b *Batch, progress func(done, total int)) (LoadStats, error) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := m.open(); err != nil {
		return LoadStats{}, wrapf("store: load: %w", err)
	}
	// Only writers, serialised by wmu, change dict and base: reading them
	// here without mu is safe.
	p, err := prepareBatch(ctx, b, len(m.dict.names), m.dict.lookup, m.hasBase)
	if err != nil {
		return LoadStats{}, wrapf("store: load: %w", err)
	}
	if p.empty() {
		if progress != nil {
			progress(0, 0)
		}
		return p.stats(), nil
	}
	// The "write" phase reports progress and honours ctx like DB's does.
	total := p.items()
	for done := checkEvery; done <= total; done += checkEvery {
		if progress != nil {
			progress(done, total)
		}
		if err := ctx.Err(); err != nil {
			return LoadStats{}, wrapf("store: load: %w", err)
		}
	}
	if progress != nil {
		progress(total, total)
	}
	if err := ctx.Err(); err != nil {
		return LoadStats{}, wrapf("store: load: %w", err)
	}

	// Build the new sets, then swap them in.
	touched := make(map[relArity]*factSet)
	for _, f := range p.facts {
		ra := relArity{f.Rel, len(f.Args)}
		fs := touched[ra]
		if fs == nil {
			fs = &factSet{keys: make(map[string]struct{})}
			if old := m.base[ra]; old != nil {
				for k := range old.keys {
					fs.keys[k] = struct{}{}
				}
			}
			touched[ra] = fs
		}
		fs.keys[argsKey(f.Args)] = struct{}{}
	}
	for ra, fs := range touched {
		fs.sorted = make([]string, 0, len(fs.keys))
		for k := range fs.keys {
			fs.sorted = append(fs.sorted, k)
		}
		sort.Strings(fs.sorted)
		if ra.Arity == 2 {
			fs.rev = make([]string, len(fs.sorted))
			for i, k := range fs.sorted {
				fs.rev[i] = k[4:] + k[:4]
			}
			sort.Strings(fs.rev)
		}
	}
	m.mu.Lock()
	for _, name := range p.newNames {
		m.dict.add(name)
	}
	for ra, fs := range touched {
		m.base[ra] = fs
	}
	m.logChanges(p.facts, true)
	for name, ts := range p.splits {
		m.splits[name] = ts
	}
	m.mu.Unlock()
	return p.stats(), nil
}

// hasBase reports whether base fact f is present; for writers, which
// wmu serialises (only they change base), without mu.
func (m *Mem) hasBase(f Fact) (bool, error) {
	fs := m.base[relArity{f.Rel, len(f.Args)}]
	if fs == nil {
		return false, nil
	}
	_, ok := fs.keys[argsKey(f.Args)]
	return ok, nil
}

// Lookup implements Store.
func (m *Mem) Lookup(name string) (ID, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return 0, false, ErrClosed
	}
	id, ok := m.dict.lookup(name)
	return id, ok, nil
}

// Intern implements Store.
func (m *Mem) Intern(name string) (ID, error) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, wrapf("store: intern %q: %w", name, ErrClosed)
	}
	if id, ok := m.dict.lookup(name); ok {
		return id, nil
	}
	return m.dict.add(name), nil
}

// Name implements Store.
func (m *Mem) Name(id ID) (string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return "", ErrClosed
	}
	if int(id) >= len(m.dict.names) {
		return "", wrapf("store: name of %d: %w", id, ErrUnknownID)
	}
	return m.dict.names[id], nil
}

// NumSymbols implements Store.
func (m *Mem) NumSymbols() (int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return 0, ErrClosed
	}
	return len(m.dict.names), nil
}

// Relations implements Store.
func (m *Mem) Relations() ([]RelationStats, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	base := make(map[relArity]int, len(m.base))
	for ra, fs := range m.base {
		base[ra] = len(fs.sorted)
	}
	derived := make(map[relArity]int, len(m.derived))
	for ra, ds := range m.derived {
		derived[ra] = len(ds.sorted)
	}
	return relationsFrom(base, derived, func(id ID) string { return m.dict.names[id] }), nil
}

// sets returns the fact sets of rel in increasing arity.
func (m *Mem) sets(rel ID) ([]int, []*factSet, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, nil, ErrClosed
	}
	var as []int
	for ra := range m.base {
		if ra.Rel == rel {
			as = append(as, ra.Arity)
		}
	}
	slices.Sort(as)
	fss := make([]*factSet, len(as))
	for i, a := range as {
		fss[i] = m.base[relArity{rel, a}]
	}
	return as, fss, nil
}

// yieldRange yields the facts of keys[lo:hi] (reversed pairs if rev).
func yieldRange(rel ID, keys []string, prefix string, rev bool, yield func(Fact, error) bool) bool {
	lo := sort.SearchStrings(keys, prefix)
	for _, k := range keys[lo:] {
		if !strings.HasPrefix(k, prefix) {
			break
		}
		args := keyArgs(k)
		if rev {
			args[0], args[1] = args[1], args[0]
		}
		if !yield(Fact{Rel: rel, Args: args}, nil) {
			return false
		}
	}
	return true
}

// Scan implements Store.
func (m *Mem) Scan(rel ID) iter.Seq2[Fact, error] {
	return func(yield func(Fact, error) bool) {
		_, fss, err := m.sets(rel)
		if err != nil {
			yield(Fact{}, wrapf("store: scan %d: %w", rel, err))
			return
		}
		for _, fs := range fss {
			if !yieldRange(rel, fs.sorted, "", false, yield) {
				return
			}
		}
	}
}

// ScanFirst implements Store.
func (m *Mem) ScanFirst(rel, a ID) iter.Seq2[Fact, error] {
	return func(yield func(Fact, error) bool) {
		as, fss, err := m.sets(rel)
		if err != nil {
			yield(Fact{}, wrapf("store: scan %d first %d: %w", rel, a, err))
			return
		}
		prefix := argsKey([]ID{a})
		for i, fs := range fss {
			if as[i] > 0 && !yieldRange(rel, fs.sorted, prefix, false, yield) {
				return
			}
		}
	}
}

// ScanObject implements Store.
func (m *Mem) ScanObject(rel, o ID) iter.Seq2[Fact, error] {
	return func(yield func(Fact, error) bool) {
		as, fss, err := m.sets(rel)
		if err != nil {
			yield(Fact{}, wrapf("store: scan %d object %d: %w", rel, o, err))
			return
		}
		for i, fs := range fss {
			if as[i] == 2 {
				yieldRange(rel, fs.rev, argsKey([]ID{o}), true, yield)
			}
		}
	}
}

// Has implements Store.
func (m *Mem) Has(f Fact) (bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return false, wrapf("store: has: %w", ErrClosed)
	}
	fs := m.base[relArity{f.Rel, len(f.Args)}]
	if fs == nil {
		return false, nil
	}
	_, ok := fs.keys[argsKey(f.Args)]
	return ok, nil
}

// Count implements Store.
func (m *Mem) Count(rel ID) (int, error) {
	_, fss, err := m.sets(rel)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, fs := range fss {
		n += len(fs.sorted)
	}
	return n, nil
}

// Splits implements Store.
func (m *Mem) Splits() ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	names := make([]string, 0, len(m.splits))
	for name := range m.splits {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// Split implements Store.
func (m *Mem) Split(name string) iter.Seq2[Triple, error] {
	return func(yield func(Triple, error) bool) {
		m.mu.RLock()
		ts, ok := m.splits[name]
		closed := m.closed
		m.mu.RUnlock()
		switch {
		case closed:
			yield(Triple{}, wrapf("store: split %q: %w", name, ErrClosed))
			return
		case !ok:
			yield(Triple{}, wrapf("store: split %q: %w", name, ErrUnknownSplit))
			return
		}
		for _, t := range ts {
			if !yield(t, nil) {
				return
			}
		}
	}
}

// Snapshot implements Store.
func (m *Mem) Snapshot(ctx context.Context) (*Snapshot, error) {
	m.mu.RLock()
	if m.closed {
		m.mu.RUnlock()
		return nil, wrapf("store: snapshot: %w", ErrClosed)
	}
	sb := &snapBuilder{nsym: len(m.dict.names)}
	var sets []*factSet
	for ra, fs := range m.base {
		if ra.Arity == 2 && len(fs.sorted) > 0 {
			sb.rels = append(sb.rels, ra.Rel)
		}
	}
	slices.Sort(sb.rels)
	for _, r := range sb.rels {
		sets = append(sets, m.base[relArity{r, 2}])
	}
	m.mu.RUnlock()
	for _, fs := range sets {
		es := make([]uint32, 0, 2*len(fs.sorted))
		for _, k := range fs.sorted {
			es = append(es, getID([]byte(k)), getID([]byte(k[4:])))
		}
		sb.edges = append(sb.edges, es)
	}
	snap, err := sb.build(ctx)
	if err != nil {
		return nil, wrapf("store: snapshot: %w", err)
	}
	return snap, nil
}

// Close implements Store.
func (m *Mem) Close() error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.closed = true
	return nil
}
