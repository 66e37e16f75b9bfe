package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"

	"github.com/dgraph-io/badger/v4"
)

// VerifyStats reports what Verify checked.
type VerifyStats struct {
	Tables int // table files whose every block checksum was verified
	Keys   int // keys read and decoded
	// HasRecord says the derived facts have a record (see Materialised),
	// of RecordBytes bytes. Changes is the number of base facts in the
	// change log, unless it overflowed (ChangeLogOverflow).
	HasRecord         bool
	RecordBytes       int
	Changes           int
	ChangeLogOverflow bool
}

// Verify checks the whole store: the checksum of every block of every table
// (Open verifies a table once, the first time it opens it, see
// VerifiedFile; Verify reads them all again), then every key and
// value: each must decode, the reverse index must mirror the forward one,
// the per-relation counters of base and derived facts must match the
// facts, the record must be whole, and the change log must count its
// entries right and agree with the base facts (a fact logged as added is
// present, one logged as removed is not). The first problem found is
// returned as a CorruptError.
func (d *DB) Verify(ctx context.Context) (st VerifyStats, err error) {
	defer d.shield(&err)()
	if err := d.open(); err != nil {
		return st, wrapf("store: verify: %w", err)
	}
	c, err := checkTables(d.dir, badgerOptions(d.dir, d.opts), true)
	if err != nil {
		return st, err
	}
	st.Tables = c.Tables
	if err := d.bdb.VerifyChecksum(); err != nil {
		return st, badgerCorrupt(d.dir, err)
	}
	d.mu.RLock()
	v := &verifier{d: d, st: &st, nsym: ID(len(d.dict.names)), base: maps.Clone(d.base), dgen: d.dgen, layer: d.layer, mat: d.mat,
		derived: maps.Clone(d.derived), dcount: map[relArity]int{}, fwd: map[relArity]int{}}
	d.mu.RUnlock()
	st.HasRecord, st.RecordBytes, st.ChangeLogOverflow = v.mat.ID != 0, int(v.mat.RecLen), v.mat.Overflow
	err = d.view(func(txn *badger.Txn) error {
		v.txn = txn
		rules, err := d.ruleRefs(txn, v.dgen)
		if err != nil {
			return v.bad("the rule table of derived generation %d does not decode", v.dgen)
		}
		v.rules = rules
		_, err = scanPrefix(txn, nil, nil, true, func(k, val []byte) (bool, error) {
			st.Keys++
			if st.Keys%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return false, err
				}
			}
			return true, v.key(k, val)
		})
		return err
	})
	if err != nil {
		return st, err
	}
	return st, v.counts()
}

// verifier is what Verify has read so far, and what the store's counters
// say it should find.
type verifier struct {
	d             *DB
	st            *VerifyStats
	txn           *badger.Txn
	nsym          ID
	base, derived map[relArity]int // the counters
	dgen          uint64
	layer         layerState
	layerN        uint64 // the layer's entries found
	mat           matState
	rules         *ruleRefs
	fwd, dcount   map[relArity]int // the facts found
	rev           int
	parts         uint32 // record parts found
	recBytes      int
}

// bad is the CorruptError of a problem found.
func (v *verifier) bad(format string, args ...any) error {
	return corrupt(v.d.dir, "", fmt.Sprintf(format, args...))
}

// key checks one key and its value.
func (v *verifier) key(k, val []byte) error {
	switch k[0] {
	case tagFwd, tagNary:
		return v.fact(k)
	case tagRev:
		if len(k) != 13 {
			return v.bad("reverse key %x has length %d", k, len(k))
		}
		v.rev++
	case tagDerived:
		gen, _, err := decodeDerivedKey(k)
		if err != nil {
			return v.bad("derived key %x does not decode", k)
		}
		if gen == v.dgen {
			if _, _, err := v.rules.decode(val); err != nil {
				return v.bad("the value of derived key %x does not decode", k)
			}
			v.dcount[relArity{getID(k[9:]), int(k[13])}]++
		}
		if gen == v.layer.gen && gen != 0 {
			return v.layerEntry(k, val)
		}
	case tagRecord:
		if len(k) != 13 {
			return v.bad("record key %x has length %d", k, len(k))
		}
		if binary.BigEndian.Uint64(k[1:]) == v.mat.ID && v.mat.ID != 0 {
			if getID(k[9:]) != v.parts || len(val) > recordPart {
				return v.bad("record part %d (%d bytes) out of sequence: %d parts before it", getID(k[9:]), len(val), v.parts)
			}
			v.parts++
			v.recBytes += len(val)
		}
	case tagLog:
		return v.logEntry(k, val)
	case tagName:
		if len(val) != 4 || getID(val) >= v.nsym || !bytes.Equal(k, nameKey(nil, v.d.dict.names[getID(val)])) {
			return v.bad("name index key %.40x does not index its symbol", k)
		}
	case tagSym:
		if len(k) != 5 || getID(k[1:]) >= v.nsym {
			return v.bad("symbol key %x outside the dictionary", k)
		}
		id, ok := v.d.dict.lookup(string(val))
		if !ok || id != getID(k[1:]) {
			return v.bad("symbol %d (%q) is not in the name index", getID(k[1:]), val)
		}
	}
	return nil
}

// layerEntry checks an entry of the layer over the visible derived
// generation, and counts the change it makes to the visible facts: a
// tombstone must hide a fact of the generation.
func (v *verifier) layerEntry(k, val []byte) error {
	v.layerN++
	_, err := v.txn.Get(append(derivedPrefix(v.dgen), k[9:]...))
	if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
		return err
	}
	inBase := err == nil
	ra := relArity{getID(k[9:]), int(k[13])}
	if len(val) == 0 {
		if !inBase {
			return v.bad("the layer deletes derived fact %x, which generation %d does not hold", k[9:], v.dgen)
		}
		v.dcount[ra]--
		return nil
	}
	if _, _, err := v.rules.decode(val); err != nil {
		return v.bad("the value of derived key %x does not decode", k)
	}
	if !inBase {
		v.dcount[ra]++
	}
	return nil
}

// fact checks a base fact's key, and its reverse index entry.
func (v *verifier) fact(k []byte) error {
	f, err := decodeFactKey(k)
	if err != nil {
		return v.bad("fact key %x does not decode", k)
	}
	for _, a := range append(f.Args, f.Rel) {
		if a >= v.nsym {
			return v.bad("fact key %x names symbol %d, the dictionary has %d", k, a, v.nsym)
		}
	}
	v.fwd[relArity{f.Rel, len(f.Args)}]++
	if k[0] == tagFwd {
		if _, err := v.txn.Get(revKey(nil, f.Rel, f.Args[1], f.Args[0])); err != nil {
			return v.bad("fact %d(%d, %d) is missing from the reverse index", f.Rel, f.Args[0], f.Args[1])
		}
	}
	return nil
}

// logEntry checks an entry of the change log against the base facts.
func (v *verifier) logEntry(k, val []byte) error {
	id, f, err := decodeLogKey(k)
	if err != nil {
		return v.bad("change log key %x does not decode", k)
	}
	if id != v.mat.ID || v.mat.ID == 0 || v.mat.Overflow {
		return nil // garbage that Open removes
	}
	if len(val) != 1 || val[0] > logAdded {
		return v.bad("change log entry %x has value %x", k, val)
	}
	for _, a := range append(f.Args, f.Rel) {
		if a >= v.nsym {
			return v.bad("change log key %x names symbol %d, the dictionary has %d", k, a, v.nsym)
		}
	}
	_, err = v.txn.Get(factKey(nil, f))
	if present := err == nil; present != (val[0] == logAdded) {
		what, base := "added", "do not hold"
		if present {
			what, base = "removed", "hold"
		}
		return v.bad("the change log says fact %d%v was %s, the base facts %s it", f.Rel, f.Args, what, base)
	}
	v.st.Changes++
	return nil
}

// counts compares what was found with the counters.
func (v *verifier) counts() error {
	for ra, n := range v.base {
		if v.fwd[ra] != n {
			return v.bad("relation %d/%d: the counter says %d facts, the index holds %d", ra.Rel, ra.Arity, n, v.fwd[ra])
		}
	}
	rev := v.rev
	for ra, n := range v.fwd {
		if n > 0 && v.base[ra] == 0 {
			return v.bad("relation %d/%d: %d facts without a counter", ra.Rel, ra.Arity, n)
		}
		if ra.Arity == 2 {
			rev -= n
		}
	}
	if rev != 0 {
		return v.bad("the reverse index has %d entries more than the forward one", rev)
	}
	for ra, n := range v.derived {
		if v.dcount[ra] != n {
			return v.bad("relation %d/%d: the derived counter says %d facts, generation %d holds %d", ra.Rel, ra.Arity, n, v.dgen, v.dcount[ra])
		}
	}
	if v.layerN != v.layer.n {
		return v.bad("the layer over derived generation %d has %d entries, the store says %d", v.dgen, v.layerN, v.layer.n)
	}
	for ra, n := range v.dcount {
		if n != 0 && v.derived[ra] == 0 {
			return v.bad("relation %d/%d: %d derived facts without a counter", ra.Rel, ra.Arity, n)
		}
	}
	if v.mat.ID != 0 && (v.parts == 0 || uint64(v.recBytes) != v.mat.RecLen) {
		return v.bad("the record has %d bytes in %d parts, the store says %d", v.recBytes, v.parts, v.mat.RecLen)
	}
	if uint64(v.st.Changes) != v.mat.Count {
		return v.bad("the change log has %d entries, the store says %d", v.st.Changes, v.mat.Count)
	}
	return nil
}
