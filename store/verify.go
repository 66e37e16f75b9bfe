package store

import (
	"context"
	"encoding/binary"
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
// (Open has done it once; Verify reads them again), then every key and
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
	n, err := checkTables(d.dir, badgerOptions(d.dir, d.opts), true)
	if err != nil {
		return st, err
	}
	st.Tables = n
	if err := d.bdb.VerifyChecksum(); err != nil {
		return st, badgerCorrupt(d.dir, err)
	}
	d.mu.RLock()
	nsym := ID(len(d.dict.names))
	base := make(map[relArity]int, len(d.base))
	for k, v := range d.base {
		base[k] = v
	}
	dgen, mat := d.dgen, d.mat
	derived := maps.Clone(d.derived)
	d.mu.RUnlock()
	st.HasRecord, st.RecordBytes, st.ChangeLogOverflow = mat.ID != 0, int(mat.RecLen), mat.Overflow
	dcount := make(map[relArity]int)
	parts, recBytes := uint32(0), 0
	bad := func(format string, args ...any) error {
		return corrupt(d.dir, "", fmt.Sprintf(format, args...))
	}
	fwd, rev := make(map[relArity]int), 0
	err = d.view(func(txn *badger.Txn) error {
		rules, err := d.ruleRefs(txn, dgen)
		if err != nil {
			return bad("the rule table of derived generation %d does not decode", dgen)
		}
		_, err = scanPrefix(txn, nil, nil, true, func(k, v []byte) (bool, error) {
			st.Keys++
			if st.Keys%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return false, err
				}
			}
			switch k[0] {
			case tagFwd, tagNary:
				f, err := decodeFactKey(k)
				if err != nil {
					return false, bad("fact key %x does not decode", k)
				}
				for _, a := range append(f.Args, f.Rel) {
					if a >= nsym {
						return false, bad("fact key %x names symbol %d, the dictionary has %d", k, a, nsym)
					}
				}
				fwd[relArity{f.Rel, len(f.Args)}]++
				if k[0] == tagFwd {
					if _, err := txn.Get(revKey(nil, f.Rel, f.Args[1], f.Args[0])); err != nil {
						return false, bad("fact %d(%d, %d) is missing from the reverse index", f.Rel, f.Args[0], f.Args[1])
					}
				}
			case tagRev:
				if len(k) != 13 {
					return false, bad("reverse key %x has length %d", k, len(k))
				}
				rev++
			case tagDerived:
				gen, _, err := decodeDerivedKey(k)
				if err != nil {
					return false, bad("derived key %x does not decode", k)
				}
				if gen == dgen {
					if _, _, err := rules.decode(v); err != nil {
						return false, bad("the value of derived key %x does not decode", k)
					}
					dcount[relArity{getID(k[9:]), int(k[13])}]++
				}
			case tagRecord:
				if len(k) != 13 {
					return false, bad("record key %x has length %d", k, len(k))
				}
				if binary.BigEndian.Uint64(k[1:]) == mat.ID && mat.ID != 0 {
					if getID(k[9:]) != parts || len(v) > recordPart {
						return false, bad("record part %d (%d bytes) out of sequence: %d parts before it", getID(k[9:]), len(v), parts)
					}
					parts++
					recBytes += len(v)
				}
			case tagLog:
				id, f, err := decodeLogKey(k)
				if err != nil {
					return false, bad("change log key %x does not decode", k)
				}
				if id != mat.ID || mat.ID == 0 || mat.Overflow {
					break // garbage that Open removes
				}
				if len(v) != 1 || v[0] > logAdded {
					return false, bad("change log entry %x has value %x", k, v)
				}
				for _, a := range append(f.Args, f.Rel) {
					if a >= nsym {
						return false, bad("change log key %x names symbol %d, the dictionary has %d", k, a, nsym)
					}
				}
				_, err = txn.Get(factKey(nil, f))
				if present := err == nil; present != (v[0] == logAdded) {
					what, base := "added", "do not hold"
					if present {
						what, base = "removed", "hold"
					}
					return false, bad("the change log says fact %d%v was %s, the base facts %s it", f.Rel, f.Args, what, base)
				}
				st.Changes++
			case tagSym:
				if len(k) != 5 || getID(k[1:]) >= nsym {
					return false, bad("symbol key %x outside the dictionary", k)
				}
				id, ok := d.dict.lookup(string(v))
				if !ok || id != getID(k[1:]) {
					return false, bad("symbol %d (%q) is not in the name index", getID(k[1:]), v)
				}
			}
			return true, nil
		})
		return err
	})
	if err != nil {
		return st, err
	}
	total := 0
	for ra, n := range base {
		if fwd[ra] != n {
			return st, bad("relation %d/%d: the counter says %d facts, the index holds %d", ra.Rel, ra.Arity, n, fwd[ra])
		}
		total += n
	}
	for ra, n := range fwd {
		if n > 0 && base[ra] == 0 {
			return st, bad("relation %d/%d: %d facts without a counter", ra.Rel, ra.Arity, n)
		}
		if ra.Arity == 2 {
			rev -= n
		}
	}
	if rev != 0 {
		return st, bad("the reverse index has %d entries more than the forward one", rev)
	}
	for ra, n := range derived {
		if dcount[ra] != n {
			return st, bad("relation %d/%d: the derived counter says %d facts, generation %d holds %d", ra.Rel, ra.Arity, n, dgen, dcount[ra])
		}
	}
	for ra, n := range dcount {
		if derived[ra] == 0 {
			return st, bad("relation %d/%d: %d derived facts without a counter", ra.Rel, ra.Arity, n)
		}
	}
	if mat.ID != 0 && (parts == 0 || uint64(recBytes) != mat.RecLen) {
		return st, bad("the record has %d bytes in %d parts, the store says %d", recBytes, parts, mat.RecLen)
	}
	if uint64(st.Changes) != mat.Count {
		return st, bad("the change log has %d entries, the store says %d", st.Changes, mat.Count)
	}
	return st, nil
}
