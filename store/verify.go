package store

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// VerifyStats reports what Verify checked.
type VerifyStats struct {
	Tables int // table files whose every block checksum was verified
	Keys   int // keys read and decoded
}

// Verify checks the whole store: the checksum of every block of every table
// (Open has done it once; Verify reads them again), then every key and
// value: each must decode, the reverse index must mirror the forward one,
// and the per-relation counters must match the facts. The first problem
// found is returned as a CorruptError.
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
	dgen := d.dgen
	d.mu.RUnlock()
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
				}
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
	return st, nil
}
