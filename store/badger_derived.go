package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// ReplaceDerived implements Store. The facts are written under a new derived
// generation; one small transaction then points the store at it, and the old
// generation is deleted afterwards.
func (d *DB) ReplaceDerived(ctx context.Context, ds []Derived) error {
	return d.replaceDerivedChecked(ctx, nil, func(old int) error {
		return checkSpace(d.dir, derivedNeed(derivedBytes(ds), d.memTableSize(), old), fmt.Sprintf("storing %d derived facts", len(ds)))
	}, func() (iter.Seq2[Derived, error], error) {
		idx, err := dedupDerived(ctx, ds)
		if err != nil {
			return nil, err
		}
		return func(yield func(Derived, error) bool) {
			for _, i := range idx {
				if !yield(ds[i], nil) {
					return
				}
			}
		}, nil
	})
}

// ReplaceDerivedSeq implements Store: ReplaceDerived without the facts in
// memory. Memory stays bounded: keys and values are handed to a Badger
// WriteBatch, which commits them in transactions of bounded size.
func (d *DB) ReplaceDerivedSeq(ctx context.Context, size int64, facts iter.Seq2[Derived, error]) error {
	return d.replaceDerivedChecked(ctx, nil, func(old int) error {
		return checkSpace(d.dir, derivedNeed(size, d.memTableSize(), old), "storing derived facts")
	}, func() (iter.Seq2[Derived, error], error) { return facts, nil })
}

// replaceDerivedChecked runs check with the number of derived facts stored
// now, then replaces them by those of the sequence that facts returns,
// with program as their record (none if nil).
func (d *DB) replaceDerivedChecked(ctx context.Context, program []byte, check func(old int) error, facts func() (iter.Seq2[Derived, error], error)) error {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return wrapf("store: replace derived: %w", err)
	}
	d.mu.RLock()
	old := 0
	for _, n := range d.derived {
		old += n
	}
	d.mu.RUnlock()
	if err := check(old); err != nil {
		return err
	}
	seq, err := facts()
	if err == nil {
		err = d.replaceDerived(ctx, seq, program)
	}
	if err != nil {
		return wrapf("store: replace derived: %w", noSpace(d.dir, err))
	}
	return nil
}

// replaceDerived writes the facts of seq, which must be distinct, under a
// new derived generation and makes it the visible one, with program as
// its record (none if nil) and an empty change log.
func (d *DB) replaceDerived(ctx context.Context, seq iter.Seq2[Derived, error], program []byte) error {
	gen, err := d.newDerivedGen()
	if err != nil {
		return err
	}
	counts := make(map[relArity]int)
	// The generation's rule table: each distinct rule reference is written
	// once (a Q key) and values carry its id, so that a rule's text is not
	// repeated in each of millions of values. lastRule and lastID skip
	// the map for a run of facts of one rule (the reasoner yields them
	// by relation, often from the same string).
	ruleIDs := make(map[string]uint32)
	lastRule, lastID := "", uint32(0)
	haveLast := false
	var ar arena
	var vbuf []byte
	written := int64(0)   // the facts' keys and values
	defer d.releasing()() // the tables written stay mapped: keep them out of RSS
	wb := d.bdb.NewWriteBatch()
	defer wb.Cancel()
	mat := d.newMat(program)
	write := func() error {
		if program != nil {
			if err := writeRecord(wb, mat.ID, program); err != nil {
				return err
			}
		}
		n := 0
		for x, err := range seq {
			if err != nil {
				return err
			}
			if n%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if n > 0 {
					d.step("derived:writing")
				}
			}
			n++
			if err := checkDerived(&x); err != nil {
				return err
			}
			if !haveLast || x.Prov.Rule != lastRule {
				id, ok := ruleIDs[x.Prov.Rule]
				if !ok {
					id = uint32(len(ruleIDs))
					ruleIDs[x.Prov.Rule] = id
					if err := wb.Set(dRuleKey(gen, id), []byte(x.Prov.Rule)); err != nil {
						return err
					}
				}
				lastRule, lastID, haveLast = x.Prov.Rule, id, true
			}
			k := derivedKey(ar.alloc(14+4*len(x.Fact.Args)), gen, x.Fact)
			vbuf = encodeDerivedRef(vbuf[:0], x.Confidence, lastID, x.Prov.Body)
			if err := wb.Set(k, ar.copy(vbuf)); err != nil {
				return err
			}
			written += int64(len(k) + len(vbuf))
			counts[relArity{x.Fact.Rel, len(x.Fact.Args)}]++
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := wb.Flush(); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return d.bdb.Sync()
	}
	if err := write(); err != nil {
		d.dropUnflipped(gen, mat)
		return err
	}
	d.step("derived:written")
	if err := d.flipDerived(gen, counts, mat); err != nil {
		return err
	}
	d.noteDebt(written)
	return nil
}

// checkDerived reports a derived fact that cannot be stored.
func checkDerived(x *Derived) error {
	if len(x.Fact.Args) > maxArity {
		return fmt.Errorf("store: derived fact with arity %d above %d", len(x.Fact.Args), maxArity)
	}
	if !(x.Confidence >= 0) {
		return fmt.Errorf("store: derived fact with confidence %g", x.Confidence)
	}
	return nil
}

// newDerivedGen allocates a derived generation: no generation is used
// twice, so the leftovers of a failed write never mix with a later one.
func (d *DB) newDerivedGen() (uint64, error) {
	gen, err := d.allocGen()
	if err != nil {
		return 0, err
	}
	d.step("derived:allocated")
	return gen, nil
}

// allocGen allocates a number no derived generation or rule table had.
func (d *DB) allocGen() (uint64, error) {
	gen := d.dnext + 1
	if err := d.bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaDNext, u64(gen)) }); err != nil {
		return 0, err
	}
	d.dnext = gen
	return gen, nil
}

// dropUnflipped removes what a derived write that failed before its flip
// wrote: generation gen and the record of mat. The next Open removes what
// this misses.
func (d *DB) dropUnflipped(gen uint64, mat matState) {
	_ = d.dropPrefixes(append(genPrefixes(gen), materialPrefixes(mat)...)...)
}

// flipDerived makes generation gen, written and synced, the visible derived
// facts with the counts and the material state mat, in one transaction;
// then it drops the previous generation and its record and log. If the
// transaction fails, the new generation is dropped and the previous one
// stays.
func (d *DB) flipDerived(gen uint64, counts map[relArity]int, mat matState) error {
	err := d.bdb.Update(func(txn *badger.Txn) error {
		for ra, n := range counts {
			if err := txn.Set(dcountKey(gen, ra.Rel, ra.Arity), u64(uint64(n))); err != nil {
				return err
			}
		}
		// Values refer to the rule table: a format 1 reader must not
		// read them.
		if err := d.raiseFormat(txn, formatRuleTable); err != nil {
			return err
		}
		if err := d.setMat(txn, mat); err != nil {
			return err
		}
		if d.rtable != d.dgen {
			// gen's rule table is its own.
			if err := txn.Delete(metaRules); err != nil {
				return err
			}
		}
		if d.layer.gen != 0 {
			if err := txn.Delete(metaLayer); err != nil {
				return err
			}
		}
		return txn.Set(metaDerived, u64(gen))
	})
	if err != nil {
		d.dropUnflipped(gen, mat)
		return err
	}
	d.commitFormat(formatRuleTable)
	if mat.ID != 0 {
		d.commitFormat(formatMaterial)
	}
	d.mu.Lock()
	old, oldTable, oldMat, oldLayer := d.dgen, d.rtable, d.mat, d.layer
	d.dgen, d.rtable, d.mat, d.layer = gen, gen, mat, layerState{}
	d.derived = counts
	d.mu.Unlock()
	d.wrules.ok, d.wrules.ids = false, nil
	d.step("derived:flipped")
	err = d.bdb.Sync()
	// A read view of the previous generation keeps it until it closes.
	drop := append(genPrefixes(old), materialPrefixes(oldMat)...)
	if oldTable != old {
		drop = append(drop, tablePrefix(oldTable))
	}
	if oldLayer.gen != 0 {
		drop = append(drop, derivedPrefix(oldLayer.gen))
	}
	_ = d.dropUnread(func(v *DB) bool { return v.dgen == old || oldMat.ID != 0 && v.mat.ID == oldMat.ID }, drop...)
	d.step("derived:done")
	return err
}

// genPrefixes are the key prefixes of derived generation gen: its facts,
// counts and rule table.
func genPrefixes(gen uint64) [][]byte {
	return [][]byte{
		derivedPrefix(gen),
		binary.BigEndian.AppendUint64([]byte{tagDCount}, gen),
		binary.BigEndian.AppendUint64([]byte{tagDRule}, gen),
	}
}

// ClearDerived implements Store.
func (d *DB) ClearDerived() error {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return wrapf("store: clear derived: %w", err)
	}
	if err := checkSpace(d.dir, 0, "clearing derived facts"); err != nil {
		return err
	}
	if err := d.replaceDerived(context.Background(), func(func(Derived, error) bool) {}, nil); err != nil {
		return wrapf("store: clear derived: %w", noSpace(d.dir, err))
	}
	return nil
}

// derivedGen reads the visible derived generation inside txn.
func derivedGen(txn *badger.Txn) (uint64, error) { return getU64Meta(txn, metaDerived) }

// ScanDerived implements Store: facts come sorted by arity, then arguments.
func (d *DB) ScanDerived(rel ID) iter.Seq2[Derived, error] {
	return func(yield func(Derived, error) bool) {
		guardSeq(d, yield, func(yield func(Derived, error) bool) {
			err := d.view(func(txn *badger.Txn) error {
				gen, err := derivedGen(txn)
				if err != nil {
					return err
				}
				layer, err := layerOf(txn)
				if err != nil {
					return err
				}
				rules, err := d.ruleRefs(txn, gen)
				if err != nil {
					return err
				}
				it := newThroughIter(txn, gen, layer.gen, putID(nil, rel))
				defer it.close()
				for {
					if err := it.next(); err != nil || !it.ok {
						return err
					}
					f, err := decodeFactSuffix(it.suffix)
					if err != nil {
						return err
					}
					conf, prov, err := rules.decode(it.val)
					if err != nil {
						return err
					}
					if !yield(Derived{Fact: f, Confidence: conf, Prov: prov}, nil) {
						return nil
					}
				}
			})
			if err != nil {
				yield(Derived{}, wrapf("store: scan derived %d: %w", rel, err))
			}
		})
	}
}

// GetDerived implements Store.
func (d *DB) GetDerived(f Fact) (Derived, bool, error) {
	if len(f.Args) > maxArity {
		return Derived{}, false, nil
	}
	var out Derived
	found := false
	err := d.view(func(txn *badger.Txn) error {
		gen, err := derivedGen(txn)
		if err != nil {
			return err
		}
		layer, err := layerOf(txn)
		if err != nil {
			return err
		}
		v, err := getThrough(txn, gen, layer.gen, appendFactSuffix(nil, f))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		conf, prov, err := d.decodeOne(txn, gen, v)
		if err != nil {
			return err
		}
		out, found = Derived{Fact: cloneFact(f), Confidence: conf, Prov: prov}, true
		return nil
	})
	if err != nil {
		return Derived{}, false, wrapf("store: get derived: %w", err)
	}
	return out, found, nil
}

// ruleTable returns rule table table (empty for a format 1 generation,
// whose values hold their rules inline), as txn sees it or longer. A
// table only grows (UpdateDerived appends to the visible generation's,
// and writes a table under a new id to rename many entries), so the
// longest table read of the last table asked for is cached, and a value
// whose rule id lies past the table it was given makes the reader read
// it again (ruleRefs.decode): a reader never misses an entry its
// transaction sees. With reread the cache is not used, nor by a
// transaction older than an update that renamed entries in place
// (rules.since): it reads its own version.
func (d *DB) ruleTable(txn *badger.Txn, table uint64, reread bool) ([]string, error) {
	d.rmu.Lock()
	defer d.rmu.Unlock()
	fresh := txn.ReadTs() >= d.rules.since
	cached := fresh && d.rules.ok && d.rules.table == table
	if cached && !reread {
		return d.rules.names, nil
	}
	var names []string
	_, err := scanPrefix(txn, tablePrefix(table), nil, true, func(k, v []byte) (bool, error) {
		if len(k) != 13 || getID(k[9:]) != uint32(len(names)) {
			return false, errCorrupt
		}
		names = append(names, string(v))
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if !fresh {
		return names, nil
	}
	if cached && len(d.rules.names) >= len(names) {
		return d.rules.names, nil
	}
	d.rules.table, d.rules.names, d.rules.ok = table, slices.Clip(names), true
	return d.rules.names, nil
}

// extendRuleTable adds to the cached rule table table the rules that a
// committed transaction appended to it after its first n entries.
func (d *DB) extendRuleTable(table uint64, n int, added []string) {
	d.rmu.Lock()
	defer d.rmu.Unlock()
	if d.rules.ok && d.rules.table == table && len(d.rules.names) == n {
		// A new slice: readers keep the old one.
		d.rules.names = slices.Concat(d.rules.names, added)
	}
}

// ruleRefs resolves the rule ids of the values of one derived generation
// that a transaction reads, through its rule table.
type ruleRefs struct {
	d     *DB
	txn   *badger.Txn
	table uint64
	names []string
}

// ruleRefs returns the resolver of generation gen's values read in txn.
func (d *DB) ruleRefs(txn *badger.Txn, gen uint64) (*ruleRefs, error) {
	table, err := ruleTableOf(txn, gen)
	if err != nil {
		return nil, err
	}
	names, err := d.ruleTable(txn, table, false)
	if err != nil {
		return nil, err
	}
	return &ruleRefs{d: d, txn: txn, table: table, names: names}, nil
}

// decode decodes a derived value and resolves its rule.
func (r *ruleRefs) decode(v []byte) (float32, Provenance, error) {
	conf, prov, ref, err := decodeDerivedValue(v)
	if err != nil {
		return 0, prov, err
	}
	if ref >= 0 {
		if ref >= int64(len(r.names)) {
			if r.names, err = r.d.ruleTable(r.txn, r.table, true); err != nil {
				return 0, prov, err
			}
			if ref >= int64(len(r.names)) {
				return 0, prov, errCorrupt
			}
		}
		prov.Rule = r.names[ref]
	}
	return conf, prov, nil
}
