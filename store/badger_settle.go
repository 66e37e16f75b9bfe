package store

import (
	"context"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Compaction debt.
//
// A write of millions of derived facts goes through Badger's memtables:
// each one full becomes a level-0 table spanning the whole new
// generation, and Badger's compactors merge them down the levels while
// the write goes on. When the write returns, the last of them are still
// on level 0 with the memtable that holds the rest, which Close writes
// as one more: level 0 then holds NumLevelZeroTables tables, a compaction
// is due, and the next process to open the store, an update that
// otherwise takes a second, starts by merging them (about a CPU-second
// for the 4.0M-fact closure). The command that wrote them pays instead,
// before it closes the store and after what it does between the write
// and its close (writing the materialisation image): Settle flushes the
// memtable, merges level 0 into the levels below and waits until no
// compaction is due or running while the compactors do the rest.

// settleLimit bounds Settle's wait for the compactors: past it the store
// closes with the rest of the debt left for the next open, as before.
const settleLimit = 2 * time.Minute

// settlePoll is how often Settle looks at the levels while it waits.
const settlePoll = 10 * time.Millisecond

// compactionDue reports whether Badger would compact a level of levels,
// or is compacting one: level 0 holding l0 tables or more, or another
// level (but the last, never compacted) at or above its target size.
// Badger's own score leaves out the tables a running compaction is
// merging away, so it shows none due while a compaction runs whose
// result may make the next level due: the sizes here count them.
func compactionDue(levels []badger.LevelInfo, l0 int) bool {
	for i, l := range levels[:max(len(levels)-1, 0)] {
		switch {
		case i == 0:
			if l.NumTables >= l0 {
				return true
			}
		case l.TargetSize > 0 && l.Size >= l.TargetSize:
			return true
		}
	}
	return false
}

// CompactionDue reports whether a compaction is due in d, or running:
// the work the next process to open the store would start with.
func (d *DB) CompactionDue() bool {
	return compactionDue(d.bdb.Levels(), d.bdb.Opts().NumLevelZeroTables)
}

// noteDebt records, after a write of derived facts of written bytes (keys
// and values), that it left compactions due when it filled at least one
// memtable: Settle pays them. (Paying them in the write stalled the
// readers of a server, whose update must not wait for them: a flush and
// a merge of level 0 hold Badger's writes, and a lookup beside it waited
// 0.3 s.)
func (d *DB) noteDebt(written int64) {
	if written >= d.memTableSize() {
		d.debt.Store(true)
	}
}

// Settle pays, after a write of derived facts that left compactions due
// (noteDebt), for them: it flushes the memtable and merges level 0 down
// (a DropPrefix of a key set for that: Badger has no other way to do
// either), then waits until no compaction is due or running, ctx is done
// or settleLimit has passed, keeping the tables the compactors write out
// of the process's memory as a large write does. It returns whether none
// is due. It is best effort: on an error the debt stays for later
// compactions, as before. A command that wrote the facts calls it before
// it closes the store, so that the next process opens it with nothing to
// compact; neither Close nor a server's updates pay it (a server stops at
// once, and its readers do not wait).
func (d *DB) Settle(ctx context.Context) bool {
	if !d.debt.Swap(false) {
		return true
	}
	defer d.releasing()()
	d.wmu.Lock()
	err := d.bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaReclaim, nil) })
	if err == nil {
		err = d.dropPrefixes(metaReclaim)
	}
	d.wmu.Unlock()
	if err != nil {
		return false
	}
	deadline := time.Now().Add(settleLimit)
	for d.CompactionDue() {
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(settlePoll)
	}
	return true
}
