package store

// stepHook, when not nil, is called by DB's multi-step writes at each of
// their steps (after what the step names is done). Only tests set it: a
// test process that kills itself there checks that a store reopened after
// any step is in the state before the write or after it.
//
// The steps of each write, in order (those marked * repeat, every
// checkEvery items written):
//
//   - Load: load:pending (the pending marker, synced), load:undo (the undo
//     log, synced), load:symbols (the new symbols handed to the data's
//     WriteBatch), load:writing*, load:written (the data, synced: still
//     rolled back by the next Open), load:committed (the commit
//     transaction: generation, counters, split pointers, material state,
//     marker removed), load:done (old splits and the undo log removed).
//   - Retract: retract:pending, retract:undo, retract:deleting*,
//     retract:written, retract:committed, retract:done, as a load.
//   - The rollback of a load or retraction that failed, or that the next
//     Open finds pending: rollback:undone (the undo log applied, synced),
//     rollback:flushed (the undo log dropped, the memtable written to a
//     table), rollback:flattened (the tables compacted into the last
//     level; the writes to the first and last key repeated, metaReclaim
//     set), rollback:reclaimed (flushed and compacted again),
//     rollback:done (the markers removed, synced). A rollback of few
//     keys, or on a device without room to compact, deletes the undo log
//     key by key instead and skips the three steps between (see reclaim).
//   - ReplaceDerived, ReplaceDerivedSeq, ReplaceDerivedRecord (infer) and
//     ClearDerived: derived:allocated (a new generation number),
//     derived:writing*, derived:written (the generation and its record,
//     synced), derived:flipped (the transaction that makes it visible),
//     derived:done (the old generation and record dropped). After a write
//     that filled a memtable, Settle (no step) flushes the memtable and
//     compacts level 0, which a kill leaves half done, the write's state
//     whole.
//   - UpdateDerived in place: update:record (a record too large for the
//     transaction, written first under a new id), update:rules (renames
//     too many for the transaction: the renamed rule table written under a
//     new id, synced), update:txn (the transaction about to commit),
//     update:committed, update:done (the old record and log dropped, and
//     the replaced rule table unless a read view reads it).
//   - UpdateDerived by copy: derived:allocated, update:copying*,
//     update:written, derived:flipped, derived:done.
//
// Intern is one transaction. The crash tests (TestKilledMaterialWrites)
// have a case for every step each write reaches, and fail when a write
// reaches a step they do not cover.
var stepHook func(step string)

// step reports that a write reached the named step.
func (d *DB) step(name string) {
	if stepHook != nil {
		stepHook(name)
	}
}
