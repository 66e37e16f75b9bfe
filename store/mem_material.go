package store

import (
	"context"
	"maps"
	"slices"
)

// Retract implements Store.
func (m *Mem) Retract(ctx context.Context, b *Batch) (RetractStats, error) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := m.open(); err != nil {
		return RetractStats{}, wrapf("store: retract: %w", err)
	}
	// Only writers, serialised by wmu, change dict and base.
	r, err := prepareRetract(ctx, b, m.dict.lookup, m.hasBase)
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
// the derived facts have a record: their net change since the record (a
// fact logged the other way loses its entry). The caller holds mu.
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
		if was, ok := m.changes[k]; ok && was != added {
			// back as it was when the record was made: no net change
			delete(m.changes, k)
			continue
		}
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
