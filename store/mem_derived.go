package store

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
)

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
