package store

import (
	"context"
	"fmt"
	"iter"
	"maps"
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
	has := func(f Fact) (bool, error) {
		fs := m.base[relArity{f.Rel, len(f.Args)}]
		if fs == nil {
			return false, nil
		}
		_, ok := fs.keys[argsKey(f.Args)]
		return ok, nil
	}
	p, err := prepareBatch(ctx, b, len(m.dict.names), m.dict.lookup, has)
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

// Retract implements Store.
func (m *Mem) Retract(ctx context.Context, b *Batch) (RetractStats, error) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := m.open(); err != nil {
		return RetractStats{}, wrapf("store: retract: %w", err)
	}
	// Only writers, serialised by wmu, change dict and base.
	has := func(f Fact) (bool, error) {
		fs := m.base[relArity{f.Rel, len(f.Args)}]
		if fs == nil {
			return false, nil
		}
		_, ok := fs.keys[argsKey(f.Args)]
		return ok, nil
	}
	r, err := prepareRetract(ctx, b, m.dict.lookup, has)
	if err != nil {
		return RetractStats{}, wrapf("store: retract: %w", err)
	}
	if len(r.facts) == 0 {
		return r.stats(), nil
	}
	// The "write" phase honours ctx like DB's does.
	for done := checkEvery; done <= len(r.facts); done += checkEvery {
		if err := ctx.Err(); err != nil {
			return RetractStats{}, wrapf("store: retract: %w", err)
		}
	}
	gone := make(map[relArity]map[string]struct{})
	for _, f := range r.facts {
		ra := relArity{f.Rel, len(f.Args)}
		if gone[ra] == nil {
			gone[ra] = make(map[string]struct{})
		}
		gone[ra][argsKey(f.Args)] = struct{}{}
	}
	touched := make(map[relArity]*factSet, len(gone))
	for ra, keys := range gone {
		old := m.base[ra]
		fs := &factSet{keys: make(map[string]struct{}, len(old.keys)-len(keys))}
		for _, k := range old.sorted {
			if _, ok := keys[k]; !ok {
				fs.keys[k] = struct{}{}
				fs.sorted = append(fs.sorted, k)
			}
		}
		for _, k := range old.rev {
			if _, ok := keys[k[4:]+k[:4]]; !ok {
				fs.rev = append(fs.rev, k)
			}
		}
		touched[ra] = fs
	}
	if err := ctx.Err(); err != nil {
		return RetractStats{}, wrapf("store: retract: %w", err)
	}
	m.mu.Lock()
	for ra, fs := range touched {
		if len(fs.sorted) == 0 {
			delete(m.base, ra)
		} else {
			m.base[ra] = fs
		}
	}
	m.logChanges(r.facts, false)
	m.mu.Unlock()
	return r.stats(), nil
}

// logChanges logs the distinct base facts fs as added or removed, when
// the derived facts have a record. The caller holds mu.
func (m *Mem) logChanges(fs []Fact, added bool) {
	if m.record == nil || m.overflow || len(fs) == 0 {
		return
	}
	capacity := m.logCap
	if capacity <= 0 {
		capacity = MaxChangeLog
	}
	keys := make([]string, len(fs))
	fresh := 0
	for i, f := range fs {
		keys[i] = string(appendFactSuffix(nil, f))
		if _, ok := m.changes[keys[i]]; !ok {
			fresh++
		}
	}
	if len(m.changes)+fresh > capacity {
		m.changes, m.overflow = nil, true
		return
	}
	if m.changes == nil {
		m.changes = make(map[string]bool)
	}
	for _, k := range keys {
		m.changes[k] = added
	}
}

// Materialised implements Store.
func (m *Mem) Materialised() (MaterialState, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return MaterialState{}, wrapf("store: materialised: %w", ErrClosed)
	}
	if m.record == nil {
		return MaterialState{}, nil
	}
	ms := MaterialState{Program: slices.Clone(m.record), Overflow: m.overflow}
	if !m.overflow {
		keys := slices.Sorted(maps.Keys(m.changes))
		ms.Changes = make([]BaseChange, len(keys))
		for i, k := range keys {
			f, _ := decodeFactSuffix([]byte(k))
			ms.Changes[i] = BaseChange{Fact: f, Added: m.changes[k]}
		}
	}
	return ms, nil
}

// setRecord makes program the record of the derived facts just written
// and clears the change log. The caller holds mu.
func (m *Mem) setRecord(program []byte) {
	m.record = slices.Clone(program)
	m.changes, m.overflow = nil, false
}

// ReplaceDerived implements Store.
func (m *Mem) ReplaceDerived(ctx context.Context, ds []Derived) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := m.open(); err != nil {
		return wrapf("store: replace derived: %w", err)
	}
	idx, err := dedupDerived(ctx, ds)
	if err != nil {
		return wrapf("store: replace derived: %w", err)
	}
	return m.replaceDerived(ctx, func(yield func(Derived, error) bool) {
		for _, i := range idx {
			if !yield(ds[i], nil) {
				return
			}
		}
	}, nil)
}

// ReplaceDerivedSeq implements Store. A fact yielded twice keeps its
// derivation of higher confidence (the first on ties), as in
// ReplaceDerived; the Badger store does not promise that.
func (m *Mem) ReplaceDerivedSeq(ctx context.Context, _ int64, facts iter.Seq2[Derived, error]) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := m.open(); err != nil {
		return wrapf("store: replace derived: %w", err)
	}
	return m.replaceDerived(ctx, facts, nil)
}

// ReplaceDerivedRecord implements Store.
func (m *Mem) ReplaceDerivedRecord(ctx context.Context, _ int64, program []byte, facts iter.Seq2[Derived, error]) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := m.open(); err != nil {
		return wrapf("store: replace derived: %w", err)
	}
	return m.replaceDerived(ctx, facts, program)
}

// replaceDerived replaces the derived facts by those of seq, with program
// as their record (none if nil).
func (m *Mem) replaceDerived(ctx context.Context, seq iter.Seq2[Derived, error], program []byte) error {
	sets := make(map[relArity]*derivedSet)
	n := 0
	for d, err := range seq {
		if err != nil {
			return wrapf("store: replace derived: %w", err)
		}
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return wrapf("store: replace derived: %w", err)
			}
		}
		n++
		if len(d.Fact.Args) > maxArity {
			return fmt.Errorf("store: replace derived: arity %d above %d", len(d.Fact.Args), maxArity)
		}
		ra := relArity{d.Fact.Rel, len(d.Fact.Args)}
		s := sets[ra]
		if s == nil {
			s = &derivedSet{vals: make(map[string]Derived)}
			sets[ra] = s
		}
		k := argsKey(d.Fact.Args)
		if prev, ok := s.vals[k]; ok {
			if d.Confidence <= prev.Confidence {
				continue
			}
		} else {
			s.sorted = append(s.sorted, k)
		}
		s.vals[k] = cloneDerived(d)
	}
	for _, s := range sets {
		sort.Strings(s.sorted)
	}
	if err := ctx.Err(); err != nil {
		return wrapf("store: replace derived: %w", err)
	}
	m.mu.Lock()
	m.derived = sets
	m.setRecord(program)
	m.mu.Unlock()
	return nil
}

// UpdateDerived implements Store.
func (m *Mem) UpdateDerived(ctx context.Context, u DerivedUpdate) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := m.open(); err != nil {
		return wrapf("store: update derived: %w", err)
	}
	ops, err := prepareUpdate(ctx, &u)
	if err != nil {
		return wrapf("store: update derived: %w", err)
	}
	// Only writers, serialised by wmu, change derived: the touched sets are
	// copied, changed and swapped in.
	touched := make(map[relArity]*derivedSet)
	if len(u.Renames) > 0 {
		for ra, old := range m.derived {
			var s *derivedSet
			for k, d := range old.vals {
				r, ok := u.Renames[d.Prov.Rule]
				if !ok {
					continue
				}
				if s == nil {
					s = &derivedSet{vals: maps.Clone(old.vals)}
					touched[ra] = s
				}
				d.Prov.Rule = r
				s.vals[k] = d
			}
		}
	}
	for i, op := range ops {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return wrapf("store: update derived: %w", err)
			}
		}
		ra := op.relArity()
		s := touched[ra]
		if s == nil {
			s = &derivedSet{vals: make(map[string]Derived)}
			if old := m.derived[ra]; old != nil {
				maps.Copy(s.vals, old.vals)
			}
			touched[ra] = s
		}
		k := string(op.key[5:]) // the arguments, as argsKey encodes them
		if op.put == nil {
			delete(s.vals, k)
		} else {
			s.vals[k] = cloneDerived(*op.put)
		}
	}
	for _, s := range touched {
		s.sorted = slices.Sorted(maps.Keys(s.vals))
	}
	if err := ctx.Err(); err != nil {
		return wrapf("store: update derived: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for ra, s := range touched {
		if len(s.sorted) == 0 {
			delete(m.derived, ra)
		} else {
			m.derived[ra] = s
		}
	}
	m.setRecord(u.Program)
	return nil
}

// ClearDerived implements Store.
func (m *Mem) ClearDerived() error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return wrapf("store: clear derived: %w", ErrClosed)
	}
	m.derived = make(map[relArity]*derivedSet)
	m.setRecord(nil)
	return nil
}

// ScanDerived implements Store.
func (m *Mem) ScanDerived(rel ID) iter.Seq2[Derived, error] {
	return func(yield func(Derived, error) bool) {
		m.mu.RLock()
		closed := m.closed
		var as []int
		for ra := range m.derived {
			if ra.Rel == rel {
				as = append(as, ra.Arity)
			}
		}
		slices.Sort(as)
		sets := make([]*derivedSet, len(as))
		for i, a := range as {
			sets[i] = m.derived[relArity{rel, a}]
		}
		m.mu.RUnlock()
		if closed {
			yield(Derived{}, wrapf("store: scan derived %d: %w", rel, ErrClosed))
			return
		}
		for _, s := range sets {
			for _, k := range s.sorted {
				if !yield(cloneDerived(s.vals[k]), nil) {
					return
				}
			}
		}
	}
}

// GetDerived implements Store.
func (m *Mem) GetDerived(f Fact) (Derived, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Derived{}, false, wrapf("store: get derived: %w", ErrClosed)
	}
	s := m.derived[relArity{f.Rel, len(f.Args)}]
	if s == nil {
		return Derived{}, false, nil
	}
	d, ok := s.vals[argsKey(f.Args)]
	if !ok {
		return Derived{}, false, nil
	}
	return cloneDerived(d), true, nil
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
