package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// UpdateDerived implements Store. An update that fits in one Badger
// transaction is applied in place, in one transaction: the changed D keys,
// the rule table entries it adds to the visible generation, the counters
// and the material state (its record too, unless the record is larger
// than one part: that is written first, under its new id, and only the
// transaction makes it visible). A larger update goes to the layer over
// the visible generation (badger_layer.go) while the layer stays under a
// quarter of the visible facts; past that it is merged with the visible
// facts into a new generation, streamed like ReplaceDerivedSeq, and
// flipped to in one transaction.
func (d *DB) UpdateDerived(ctx context.Context, u DerivedUpdate) error {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return wrapf("store: update derived: %w", err)
	}
	ops, err := prepareUpdate(ctx, &u)
	if err != nil {
		return wrapf("store: update derived: %w", err)
	}
	// Renamed entries: in the transaction, or a rule table of their own.
	renames, renamed := renameBytes(u.Renames)
	size := updateBytes(ops) + recordBytes(u.Program) + renamed
	if err := checkSpace(d.dir, loadAmplification*size, fmt.Sprintf("updating %d derived facts", len(ops))); err != nil {
		return err
	}
	mat := d.newMat(u.Program)
	fits := d.fitsTxn(ops, u.Program, renames, renamed)
	if fits || len(u.Renames) > 0 && d.fitsTxn(ops, u.Program, 0, 0) {
		// Renames too many for the transaction go to a rule table of
		// their own (writeRenamedTable).
		done, err := d.updateInPlace(ctx, ops, u.Program, u.Renames, mat, !fits, false)
		if err != nil {
			return wrapf("store: update derived: %w", noSpace(d.dir, err))
		}
		if done {
			return nil
		}
	}
	if d.layerFits(len(ops)) {
		// The new layer holds the old one's entries too.
		if err := checkSpace(d.dir, loadAmplification*(size+d.layerBytes()), fmt.Sprintf("updating %d derived facts", len(ops))); err != nil {
			return err
		}
		// Renames go to the transaction when they fit in it with the
		// counts and the record, to a table of their own otherwise.
		ownTable := len(u.Renames) > 0 && !d.fitsTxn(nil, u.Program, renames, renamed)
		done, err := d.updateInPlace(ctx, ops, u.Program, u.Renames, mat, ownTable, true)
		if err != nil {
			return wrapf("store: update derived: %w", noSpace(d.dir, err))
		}
		if done {
			return nil
		}
	}
	d.mu.RLock()
	old := 0
	for _, n := range d.derived {
		old += n
	}
	d.mu.RUnlock()
	if err := checkSpace(d.dir, derivedNeed(d.derivedBytes(old)+size, d.memTableSize(), old), fmt.Sprintf("updating %d of %d derived facts", len(ops), old)); err != nil {
		return err
	}
	if err := d.updateByCopy(ctx, ops, u.Program, u.Renames, mat); err != nil {
		return wrapf("store: update derived: %w", noSpace(d.dir, err))
	}
	return nil
}

// updateBytes estimates the key and value bytes an update writes: its
// facts, deletion markers and rule table entries (each rule once).
func updateBytes(ops []updateOp) int64 {
	var n int64
	rules := make(map[string]bool)
	for _, op := range ops {
		if op.put == nil {
			n += int64(9+len(op.key)) + entryOverhead
			continue
		}
		n += DerivedSize(op.put)
		if r := op.put.Prov.Rule; !rules[r] {
			rules[r] = true
			n += int64(13+len(r)) + entryOverhead
		}
	}
	return n
}

// derivedBytes estimates the bytes of the n visible derived facts, which
// an update by copy writes again: Badger's estimate of the generation's
// tables, or a lower bound per fact if that is less (the tables that also
// hold other keys, and the memtables, are not counted by Badger).
func (d *DB) derivedBytes(n int) int64 {
	onDisk, _ := d.bdb.EstimateSize(derivedPrefix(d.dgen))
	return max(int64(onDisk), int64(n)*(22+entryOverhead))
}

// fitsTxn reports whether an update of ops with program, and renames of
// the given entries and bytes (renameBytes), seems to fit in one Badger
// transaction (if it does not after all, Badger says so and the update is
// made by copy).
func (d *DB) fitsTxn(ops []updateOp, program []byte, renames, renamed int64) bool {
	const perEntry = 10 + 2 // Badger's version and meta bytes
	count, size := int64(len(ops)+16)+renames, renamed
	rules := make(map[string]bool)
	for _, op := range ops {
		size += int64(9+len(op.key)) + perEntry
		if op.put != nil {
			size += DerivedSize(op.put)
			if r := op.put.Prov.Rule; !rules[r] {
				rules[r] = true
				count++
				size += int64(13+len(r)) + perEntry
			}
		}
	}
	if len(program) <= recordPart {
		size += int64(len(program))
	}
	return count < d.txnCount && size < d.txnSize
}

// writerRules is the visible generation's rule table as the writer sees
// it: its size and the id of each rule. It is read from txn once per
// table, then kept up to date by the writes that append to it.
func (d *DB) writerRules(txn *badger.Txn) error {
	table := d.rtable
	if d.wrules.ok && d.wrules.table == table {
		return nil
	}
	ids := make(map[string]uint32)
	n := 0
	_, err := scanPrefix(txn, tablePrefix(table), nil, true, func(k, v []byte) (bool, error) {
		if len(k) != 13 || getID(k[9:]) != uint32(n) {
			return false, errCorrupt
		}
		if _, dup := ids[string(v)]; !dup {
			ids[string(v)] = uint32(n)
		}
		n++
		return true, nil
	})
	if err != nil {
		return err
	}
	d.wrules.table, d.wrules.n, d.wrules.ids, d.wrules.ok = table, n, ids, true
	return nil
}

// updateInPlace applies ops to the visible generation in one transaction
// (to its layer, if it has one). With layered, ops go instead to a new
// layer written first (writeLayer), which the transaction points mlayer
// at. With ownTable the renames are written first, as a rule table under
// a new id (writeRenamedTable) that the transaction switches to;
// otherwise the transaction renames the entries. done is false, and the
// store unchanged, when the transaction is too big.
func (d *DB) updateInPlace(ctx context.Context, ops []updateOp, program []byte, renames map[string]string, mat matState, ownTable, layered bool) (done bool, err error) {
	var gen uint64 // the new layer's
	if layered {
		defer d.releasing()() // as replaceDerived
		if gen, err = d.newDerivedGen(); err != nil {
			return false, err
		}
	}
	dropLayer := func() {
		if layered {
			_ = d.dropPrefixes(derivedPrefix(gen))
		}
	}
	bigRecord := len(program) > recordPart
	if bigRecord {
		if err := d.writeRecordFirst(mat, program); err != nil {
			dropLayer()
			return false, err
		}
	}
	var nt *newTable
	if ownTable {
		if nt, err = d.writeRenamedTable(ctx, renames); err != nil {
			d.dropRecordFirst(bigRecord, mat)
			dropLayer()
			return false, err
		}
		renames = nil
	}
	txn := d.bdb.NewTransaction(true)
	defer txn.Discard()
	oldLayer := d.layer
	u := &inPlace{d: d, txn: txn, gen: d.dgen, layer: oldLayer, added: map[string]uint32{}, delta: map[relArity]int{}}
	if nt != nil {
		u.table, u.n, u.ids = nt.id, nt.n, nt.ids
		err = d.switchTable(txn, nt)
	} else if err = d.writerRules(txn); err == nil {
		u.table, u.n, u.ids = d.rtable, d.wrules.n, d.wrules.ids
	}
	if err == nil {
		err = u.rename(renames)
	}
	if err == nil && layered {
		err = d.writeLayer(ctx, u, gen, ops)
	} else if err == nil {
		err = u.apply(ctx, ops)
	}
	if err == nil {
		err = u.counts()
	}
	if err == nil && u.layer != oldLayer {
		if err = d.raiseFormat(txn, formatLayer); err == nil {
			err = txn.Set(metaLayer, u.layer.encode())
		}
	}
	if err == nil && program != nil && !bigRecord {
		err = writeRecord(txn, mat.ID, program)
	}
	if err == nil {
		if len(renames) > 0 {
			d.renamesCommitting()
			defer d.renamesCommitted()
		}
		err = d.commitInPlace(ctx, txn, mat)
	}
	if err != nil {
		d.dropRecordFirst(bigRecord, mat)
		if nt != nil {
			_ = d.deletePrefixes(tablePrefix(nt.id))
		}
		dropLayer()
		if errors.Is(err, badger.ErrTxnTooBig) {
			return false, nil
		}
		return false, err
	}
	if u.layer != oldLayer {
		d.commitFormat(formatLayer)
	}
	oldTable := d.rtable
	oldMat := d.afterInPlace(u, mat, len(renames) > 0, nt)
	d.step("update:committed")
	err = d.bdb.Sync()
	d.dropMaterial(oldMat)
	if nt != nil && err == nil {
		d.dropTable(oldTable)
	}
	if layered && oldLayer.gen != 0 {
		_ = d.dropUnread(func(v *DB) bool { return v.layer.gen == oldLayer.gen }, derivedPrefix(oldLayer.gen))
	}
	d.step("update:done")
	return true, err
}

// dropRecordFirst removes the record writeRecordFirst wrote (if big) for
// an update that failed.
func (d *DB) dropRecordFirst(big bool, mat matState) {
	if big {
		_ = d.deletePrefixes(materialPrefixes(mat)...)
	}
}

// writeRecordFirst writes the parts of a record too large for the update's
// transaction, under its new id: until the transaction commits they are
// garbage (the next Open removes them).
func (d *DB) writeRecordFirst(mat matState, program []byte) error {
	wb := d.bdb.NewWriteBatch()
	defer wb.Cancel()
	err := writeRecord(wb, mat.ID, program)
	if err == nil {
		err = wb.Flush()
	}
	if err == nil {
		err = d.bdb.Sync()
	}
	if err != nil {
		_ = d.deletePrefixes(materialPrefixes(mat)...)
		return err
	}
	d.step("update:record")
	return nil
}

// inPlace is an update in one transaction of generation gen, through
// layer when it has one: the rule ids it sees (ids, after renames), the
// rules it adds to the table, and the change of each relation's count.
type inPlace struct {
	d        *DB
	txn      *badger.Txn
	gen      uint64
	layer    layerState // the layer the update leaves
	table    uint64     // the rule table's id
	n        int        // its entries before the update
	ids      map[string]uint32
	added    map[string]uint32
	newRules []string
	delta    map[relArity]int
	ar       arena
	vbuf     []byte
}

// rename renames rule table entries.
func (u *inPlace) rename(renames map[string]string) error {
	renamed, err := renameRules(u.txn, u.table, renames)
	if err != nil {
		return err
	}
	if len(renamed) > 0 {
		u.ids = maps.Clone(u.ids)
		for _, r := range renamed {
			if u.ids[r.old] == r.id {
				delete(u.ids, r.old)
			}
		}
		for _, r := range renamed {
			if x, ok := u.ids[r.new]; !ok || r.id < x {
				u.ids[r.new] = r.id
			}
		}
	}
	return nil
}

// apply writes the ops.
func (u *inPlace) apply(ctx context.Context, ops []updateOp) error {
	for i := range ops {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := u.op(&ops[i]); err != nil {
			return err
		}
	}
	return nil
}

// op writes one put or delete.
func (u *inPlace) op(op *updateOp) error {
	if u.layer.gen != 0 {
		return u.layerOp(op)
	}
	txn := u.txn
	k := binary.BigEndian.AppendUint64(append(u.ar.alloc(9+len(op.key)), tagDerived), u.gen)
	k = append(k, op.key...)
	_, err := txn.Get(k)
	exists := err == nil
	if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
		return err
	}
	if op.put == nil {
		if !exists {
			return nil
		}
		u.delta[op.relArity()]--
		return txn.Delete(k)
	}
	if err := u.set(k, op.put); err != nil {
		return err
	}
	if !exists {
		u.delta[op.relArity()]++
	}
	return nil
}

// value encodes d's value, with its rule's table id (appending the rule
// to the table when new), in u.vbuf.
func (u *inPlace) value(d *Derived) ([]byte, error) {
	id, err := u.ruleID(d.Prov.Rule)
	if err != nil {
		return nil, err
	}
	u.vbuf = encodeDerivedRef(u.vbuf[:0], d.Confidence, id, d.Prov.Body)
	return u.vbuf, nil
}

// set sets key k to d's value in the transaction.
func (u *inPlace) set(k []byte, d *Derived) error {
	v, err := u.value(d)
	if err != nil {
		return err
	}
	return u.txn.Set(k, u.ar.copy(v))
}

// ruleID is the table id of rule, appending it to the table when new.
func (u *inPlace) ruleID(rule string) (uint32, error) {
	if id, ok := u.ids[rule]; ok {
		return id, nil
	}
	if id, ok := u.added[rule]; ok {
		return id, nil
	}
	rule = strings.Clone(rule) // kept by the rule tables: not the caller's memory
	id := uint32(u.n + len(u.newRules))
	u.added[rule] = id
	u.newRules = append(u.newRules, rule)
	return id, u.txn.Set(dRuleKey(u.table, id), []byte(rule))
}

// counts writes the relations' new derived counts.
func (u *inPlace) counts() error {
	for ra, n := range u.delta {
		k := dcountKey(u.gen, ra.Rel, ra.Arity)
		var err error
		switch left := u.d.derived[ra] + n; {
		case n == 0:
		case left > 0:
			err = u.txn.Set(k, u64(uint64(left)))
		default:
			err = u.txn.Delete(k)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// commitInPlace raises the format, sets the material state and commits.
func (d *DB) commitInPlace(ctx context.Context, txn *badger.Txn, mat matState) error {
	if err := d.raiseFormat(txn, formatRuleTable); err != nil {
		return err
	}
	if err := d.setMat(txn, mat); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	d.step("update:txn")
	return txn.Commit()
}

// afterInPlace brings the in-memory state up to a committed update: the
// formats, the material state and the counts (together, for readers), the
// rule tables' caches (read again when entries were renamed; the new
// table's when the update switched to nt). It returns the material state
// replaced.
func (d *DB) afterInPlace(u *inPlace, mat matState, renamed bool, nt *newTable) (old matState) {
	d.commitFormat(formatRuleTable)
	if mat.ID != 0 {
		d.commitFormat(formatMaterial)
	}
	d.mu.Lock()
	old, d.mat, d.layer = d.mat, mat, u.layer
	if nt != nil {
		d.rtable = nt.id
	}
	for ra, n := range u.delta {
		if d.derived[ra] += n; d.derived[ra] == 0 {
			delete(d.derived, ra)
		}
	}
	d.mu.Unlock()
	if nt != nil {
		d.afterSwitch(nt, u.newRules)
		return old
	}
	for _, r := range u.newRules {
		d.wrules.ids[r] = uint32(d.wrules.n)
		d.wrules.n++
	}
	d.extendRuleTable(u.table, d.wrules.n-len(u.newRules), u.newRules)
	if renamed {
		// Entries changed in place: both caches read the table again
		// (readers: renamesCommitted).
		d.wrules.ok = false
	}
	return old
}

// dropMaterial deletes the record and change log of old, a material
// state that a derived write replaced (the next Open does it if this
// fails).
func (d *DB) dropMaterial(old matState) {
	if old.ID == 0 {
		return
	}
	_ = d.deletePrefixes(binary.BigEndian.AppendUint64([]byte{tagRecord}, old.ID))
	d.dropLog(old)
}

// updateByCopy writes a new generation that merges the visible derived
// facts with ops, streaming both in key order, and flips to it.
func (d *DB) updateByCopy(ctx context.Context, ops []updateOp, program []byte, renames map[string]string, mat matState) error {
	defer d.releasing()() // as replaceDerived
	old := d.dgen
	gen, err := d.newDerivedGen()
	if err != nil {
		return err
	}
	ids, n, counts, err := d.writeMerged(ctx, old, gen, ops, program, renames, mat)
	if err != nil {
		d.dropUnflipped(gen, mat)
		return err
	}
	if err := d.flipDerived(gen, counts, mat); err != nil {
		return err
	}
	d.wrules.table, d.wrules.n, d.wrules.ids, d.wrules.ok = gen, n, ids, true
	return nil
}

// writeMerged writes generation gen: the facts of generation old merged
// with ops, the rule table of old followed by the rules ops add, and
// program as the record of mat. It returns the rule table's ids and size,
// and the counts of the new generation.
func (d *DB) writeMerged(ctx context.Context, old, gen uint64, ops []updateOp, program []byte, renames map[string]string, mat matState) (map[string]uint32, int, map[relArity]int, error) {
	wb := d.bdb.NewWriteBatch()
	defer wb.Cancel()
	txn := d.bdb.NewTransaction(false)
	defer txn.Discard()
	m := &merger{d: d, ctx: ctx, wb: wb, ops: ops, ids: make(map[string]uint32), counts: make(map[relArity]int),
		genPrefix: derivedPrefix(gen), gen: gen}
	if err := m.copyRules(txn, d.rtable, renames); err != nil {
		return nil, 0, nil, err
	}
	if program != nil {
		if err := writeRecord(wb, mat.ID, program); err != nil {
			return nil, 0, nil, err
		}
	}
	if err := m.mergeFacts(txn, old, d.layer.gen); err != nil {
		return nil, 0, nil, err
	}
	if err := m.flush(); err != nil {
		return nil, 0, nil, err
	}
	d.step("update:written")
	return m.ids, m.n, m.counts, nil
}

// merger writes a new derived generation gen through wb: the facts of the
// visible generation merged with ops (sorted by key), and its rule table.
type merger struct {
	d         *DB
	ctx       context.Context
	wb        *badger.WriteBatch
	gen       uint64
	genPrefix []byte // the D key prefix of gen
	ops       []updateOp
	next      int               // the first op not merged yet
	ids       map[string]uint32 // the rule table's id of each rule
	n         int               // the rule table's size
	counts    map[relArity]int  // facts written per relation
	written   int               // facts written
	ar        arena
	vbuf      []byte
}

// copyRules writes rule table table as gen's, each entry renamed as
// renames says, and notes the id of each rule (the first, when renaming
// makes two entries equal).
func (m *merger) copyRules(txn *badger.Txn, table uint64, renames map[string]string) error {
	_, err := scanPrefix(txn, tablePrefix(table), nil, true, func(k, v []byte) (bool, error) {
		if len(k) != 13 || getID(k[9:]) != uint32(m.n) {
			return false, errCorrupt
		}
		if r, ok := renames[string(v)]; ok {
			v = []byte(r)
		}
		if _, dup := m.ids[string(v)]; !dup {
			m.ids[string(v)] = uint32(m.n)
		}
		m.n++
		return true, m.wb.Set(dRuleKey(m.gen, uint32(m.n-1)), v)
	})
	return err
}

// mergeFacts streams the facts of generation old, through its layer (0:
// none), in key order and writes them to gen, with the puts of the ops in
// between: an op with the key of an old fact replaces it (a put) or drops
// it (a delete).
func (m *merger) mergeFacts(txn *badger.Txn, old, layer uint64) error {
	it := newThroughIter(txn, old, layer, nil)
	defer it.close()
	for {
		if err := it.next(); err != nil {
			return err
		}
		if !it.ok {
			break
		}
		replaced, err := m.putThrough(it.suffix)
		if err != nil {
			return err
		}
		if replaced {
			continue
		}
		if err := m.copyFact(it.suffix, it.val); err != nil {
			return err
		}
	}
	for ; m.next < len(m.ops); m.next++ {
		if err := m.putOp(&m.ops[m.next]); err != nil {
			return err
		}
	}
	return nil
}

// putThrough writes the puts of the ops not merged yet whose keys are up
// to key (an old fact's, without the generation prefix), and reports
// whether one of them had key itself: that op replaces or deletes the old
// fact. It stops after that op.
func (m *merger) putThrough(key []byte) (replaced bool, err error) {
	for ; m.next < len(m.ops) && bytes.Compare(m.ops[m.next].key, key) <= 0; m.next++ {
		op := &m.ops[m.next]
		if err := m.putOp(op); err != nil {
			return false, err
		}
		if bytes.Equal(op.key, key) {
			m.next++
			return true, nil
		}
	}
	return false, nil
}

// putOp writes op's fact if op is a put, with its rule added to the rule
// table when new.
func (m *merger) putOp(op *updateOp) error {
	if op.put == nil {
		return nil
	}
	rule := op.put.Prov.Rule
	id, ok := m.ids[rule]
	if !ok {
		rule = strings.Clone(rule) // kept by the writer's table
		id = uint32(m.n)
		m.n++
		m.ids[rule] = id
		if err := m.wb.Set(dRuleKey(m.gen, id), []byte(rule)); err != nil {
			return err
		}
	}
	m.vbuf = encodeDerivedRef(m.vbuf[:0], op.put.Confidence, id, op.put.Prov.Body)
	m.counts[op.relArity()]++
	if err := m.wb.Set(append(append(m.ar.alloc(len(m.genPrefix)+len(op.key)), m.genPrefix...), op.key...), m.ar.copy(m.vbuf)); err != nil {
		return err
	}
	return m.tick()
}

// copyFact writes the old fact whose key without the generation prefix
// is suffix, and whose value is v, to gen unchanged.
func (m *merger) copyFact(suffix, v []byte) error {
	m.counts[relArity{getID(suffix), int(suffix[4])}]++
	if err := m.wb.Set(append(append(m.ar.alloc(len(m.genPrefix)+len(suffix)), m.genPrefix...), suffix...), m.ar.copy(v)); err != nil {
		return err
	}
	return m.tick()
}

// tick counts a fact written; every checkEvery facts it reports the step
// and checks the context.
func (m *merger) tick() error {
	if m.written++; m.written%checkEvery == 0 {
		m.d.step("update:copying")
		return m.ctx.Err()
	}
	return nil
}

// flush waits for the write batch and syncs, checking the context before
// and after.
func (m *merger) flush() error {
	if err := m.ctx.Err(); err != nil {
		return err
	}
	if err := m.wb.Flush(); err != nil {
		return err
	}
	if err := m.ctx.Err(); err != nil {
		return err
	}
	return m.d.bdb.Sync()
}
