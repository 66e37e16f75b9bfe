package store

import (
	"context"
	"encoding/binary"
	"errors"
	"math"

	"github.com/dgraph-io/badger/v4"
)

// The rule table of a derived generation (the Q keys its values refer to)
// has an id of its own: the generation's number, unless mrules names
// another. An update that renames more rules than one transaction holds
// (a line removed near the top of a mined file moves tens of thousands)
// writes the renamed table under a new id first, in write batches of its
// own, and its transaction points mrules at it: the facts stay where they
// are, and the update is in place whatever the number of renames.

// ruleTableOf returns the id of the rule table of derived generation gen
// as txn sees it.
func ruleTableOf(txn *badger.Txn, gen uint64) (uint64, error) {
	v, err := getValue(txn, metaRules)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return gen, nil
	}
	if err != nil {
		return 0, err
	}
	if len(v) != 16 || binary.BigEndian.Uint64(v) != gen {
		return 0, errCorrupt
	}
	return binary.BigEndian.Uint64(v[8:]), nil
}

// rulesValue is the value of mrules: table is the rule table of gen.
func rulesValue(gen, table uint64) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, gen), table)
}

// tablePrefix is the key prefix of rule table table.
func tablePrefix(table uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{tagDRule}, table)
}

// newTable is a rule table written under a new id for an update: its
// size and the id of each rule (the first, when renaming made two
// entries equal), and its entries.
type newTable struct {
	id    uint64
	n     int
	ids   map[string]uint32
	names []string
}

// renameBytes estimates the entries and bytes that renaming entries of
// the rule table in a transaction writes (each renamed rule counted,
// whether the table has it or not).
func renameBytes(renames map[string]string) (count, size int64) {
	const perEntry = 10 + 2 // Badger's version and meta bytes
	for _, r := range renames {
		count++
		size += int64(13+len(r)) + perEntry
	}
	return count, size
}

// writeRenamedTable writes the visible generation's rule table, each entry
// renamed as renames says, under a new table id, flushed and synced. Until
// a transaction points mrules at it, it is garbage (removed by the update
// that fails, or by the next Open).
func (d *DB) writeRenamedTable(ctx context.Context, renames map[string]string) (*newTable, error) {
	id, err := d.allocGen()
	if err != nil {
		return nil, err
	}
	t := &newTable{id: id, ids: make(map[string]uint32)}
	wb := d.bdb.NewWriteBatch()
	defer wb.Cancel()
	err = d.bdb.View(func(txn *badger.Txn) error {
		_, err := scanPrefix(txn, tablePrefix(d.rtable), nil, true, func(k, v []byte) (bool, error) {
			if len(k) != 13 || getID(k[9:]) != uint32(t.n) {
				return false, errCorrupt
			}
			name, ok := renames[string(v)]
			if !ok {
				name = string(v)
			}
			if _, dup := t.ids[name]; !dup {
				t.ids[name] = uint32(t.n)
			}
			t.names = append(t.names, name)
			t.n++
			if t.n%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return false, err
				}
			}
			return true, wb.Set(dRuleKey(id, uint32(t.n-1)), []byte(name))
		})
		return err
	})
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = wb.Flush()
	}
	if err == nil {
		err = d.bdb.Sync()
	}
	if err != nil {
		_ = d.deletePrefixes(tablePrefix(id))
		return nil, err
	}
	d.step("update:rules")
	return t, nil
}

// switchTable points mrules, in the update's transaction txn, at the rule
// table t of the visible generation.
func (d *DB) switchTable(txn *badger.Txn, t *newTable) error {
	if err := d.raiseFormat(txn, formatRuleTables); err != nil {
		return err
	}
	return txn.Set(metaRules, rulesValue(d.dgen, t.id))
}

// renamesCommitting keeps readers from the cached rule table while an
// update that renames entries in place commits: a reader's transaction
// may see the table before or after.
func (d *DB) renamesCommitting() {
	d.rmu.Lock()
	d.rules.since = math.MaxUint64
	d.rmu.Unlock()
}

// renamesCommitted drops the cached rule table after such an update,
// committed or not, and lets the transactions that see its outcome use
// the cache again; those that began before keep reading their own
// version of the table (a reader of an older snapshot must not cache its
// names for the readers after it).
func (d *DB) renamesCommitted() {
	txn := d.bdb.NewTransaction(false)
	since := txn.ReadTs()
	txn.Discard()
	d.rmu.Lock()
	d.rules.ok, d.rules.since = false, since
	d.rmu.Unlock()
}

// afterSwitch makes t, committed with the entries the update appended
// (added), the rule table of the visible generation for writers and
// readers (d.rtable is set already).
func (d *DB) afterSwitch(t *newTable, added []string) {
	d.commitFormat(formatRuleTables)
	for _, r := range added {
		t.ids[r] = uint32(t.n)
		t.names = append(t.names, r)
		t.n++
	}
	d.wrules.table, d.wrules.n, d.wrules.ids, d.wrules.ok = t.id, t.n, t.ids, true
	d.rmu.Lock()
	d.rules.table, d.rules.names, d.rules.ok = t.id, t.names, true
	d.rmu.Unlock()
}

// dropTable drops rule table old, replaced by a committed and synced
// update, once no read view reads it.
func (d *DB) dropTable(old uint64) {
	_ = d.dropUnread(func(v *DB) bool { return v.rtable == old }, tablePrefix(old))
}

// renamedRule is a rule table entry that renameRules changed.
type renamedRule struct {
	id       uint32
	old, new string
}

// renameRules gives the entries of rule table table that are keys of
// renames their new value, in txn, and returns them.
func renameRules(txn *badger.Txn, table uint64, renames map[string]string) ([]renamedRule, error) {
	if len(renames) == 0 {
		return nil, nil
	}
	var out []renamedRule
	_, err := scanPrefix(txn, tablePrefix(table), nil, true, func(k, v []byte) (bool, error) {
		if r, ok := renames[string(v)]; ok && len(k) == 13 {
			out = append(out, renamedRule{getID(k[9:]), string(v), r})
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range out {
		if err := txn.Set(dRuleKey(table, r.id), []byte(r.new)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
