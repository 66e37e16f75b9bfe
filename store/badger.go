package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// Options configures Open. The zero value means the defaults.
type Options struct {
	// ReadOnly opens the store without writing to it (but for
	// VerifiedFile, a cache, when the directory is writable); writes
	// return ErrReadOnly and an interrupted load is reported as
	// ErrIncomplete instead of being rolled back.
	ReadOnly bool
	// SyncWrites makes Badger fsync every commit. Loads and derived
	// replacements sync at their commit points either way.
	SyncWrites bool
	// MemTableSize is Badger's memtable size in bytes; 0 means 16 MiB.
	MemTableSize int64
}

// DB is the Badger-backed Store. Its methods are safe for concurrent use;
// writers (Load, Retract, Intern, ReplaceDerived and the other derived
// writes) are serialised.
type DB struct {
	keepMapped atomic.Bool // KeepMapped
	dir        string
	opts       Options
	bdb        *badger.DB
	checked    tableChecks // what Open's checkTables did

	// debt is set by a large write of derived facts: Settle waits for
	// the compactions it left.
	debt atomic.Bool

	wmu     sync.Mutex // serialises writers
	format  uint32     // the store's format version; changed under wmu
	logCap  int        // the change log's cap; 0 means MaxChangeLog (tests lower it)
	matLast uint64     // the last material id allocated (newMat); under wmu
	// txnCount and txnSize are the most entries and bytes UpdateDerived
	// puts in one transaction (Badger's limits; tests raise them to make
	// Badger refuse the transaction).
	txnCount, txnSize int64

	// wrules is the visible generation's rule table as writers need it
	// (writerRules), under wmu.
	wrules struct {
		table uint64            // the rule table's id
		n     int               // entries
		ids   map[string]uint32 // the id of each rule
		ok    bool
	}

	rmu   sync.Mutex // guards rules
	rules struct {   // a rule table (ruleTable)
		// since: a transaction that reads before it neither uses nor
		// fills the cache (an update renamed entries in place then).
		since uint64
		table uint64
		names []string
		ok    bool
	}

	mu      sync.RWMutex // guards the fields below
	closed  bool
	dict    dict
	base    map[relArity]int
	derived map[relArity]int
	gen     uint64     // last committed load generation
	dgen    uint64     // visible derived generation
	rtable  uint64     // the id of its rule table (ruleTableOf)
	layer   layerState // the layer of changes over it (badger_layer.go)
	dnext   uint64     // last derived generation allocated
	mat     matState
	splits  map[string]splitPtr

	// parent and snap are set in a read view (ReadView): the store it was
	// taken of, and the read transaction every read of the view runs in.
	parent *DB
	snap   *badger.Txn
	// pins are the store's open read views and the drops they defer.
	pins pins
}

// splitPtr is the current generation and size of a split.
type splitPtr struct {
	gen   uint64
	count int
}

var _ Store = (*DB)(nil)

// quietLogger discards Badger's log output.
type quietLogger struct{}

// Errorf discards the message.
func (quietLogger) Errorf(string, ...any) {}

// Warningf discards the message.
func (quietLogger) Warningf(string, ...any) {}

// Infof discards the message.
func (quietLogger) Infof(string, ...any) {}

// Debugf discards the message.
func (quietLogger) Debugf(string, ...any) {}

// Open opens the store in dir, creating it when dir is missing or empty.
//
// It returns ErrInUse when another process (or another DB in this process)
// has the directory open, ErrNotStore when dir holds something else,
// ErrNewerFormat when a newer version wrote it, ErrNoSpace when a writer
// (or, with ReadOnly, a store holding the log of a write that did not
// finish: checkLogSpace) has too little room on the device, and, with
// ReadOnly, ErrIncomplete when a load was interrupted. Without ReadOnly an
// interrupted load is rolled back. Errors are wrapped with the directory.
func Open(dir string, opts Options) (*DB, error) {
	if err := checkDir(dir, opts.ReadOnly); err != nil {
		return nil, err
	}
	if !opts.ReadOnly {
		if err := writableDir(dir); err != nil {
			return nil, wrapf("store: open %s: %w (%v)", dir, ErrNotWritable, err)
		}
		if err := checkSpace(dir, 0, "opening the store for writing"); err != nil {
			return nil, err
		}
	} else if err := checkLogSpace(dir); err != nil {
		return nil, err
	}
	bo := badgerOptions(dir, opts)
	// Check the tables under a lock of our own, so that no writer changes
	// them meanwhile; a shared one is kept while Badger takes its own.
	unlock, err := lockDir(dir, opts.ReadOnly)
	if err != nil {
		return nil, wrapf("store: open %s: %w", dir, err)
	}
	checked, err := checkTables(dir, bo, false)
	if err != nil {
		unlock()
		return nil, err
	}
	if !opts.ReadOnly {
		err := removeEmptyLogs(dir)
		unlock()
		if err != nil {
			return nil, wrapf("store: open %s: %w", dir, err)
		}
	}
	bdb, err := badger.Open(bo)
	if opts.ReadOnly {
		unlock()
	}
	if err != nil {
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, wrapf("store: open %s: %w", dir, ErrInUse)
		}
		if opts.ReadOnly && (strings.Contains(err.Error(), "truncate required") || strings.Contains(err.Error(), "error while truncation")) {
			// The last writer died: its log (or a memtable file, which
			// a read-only open cannot truncate to its size) needs a
			// recovery that only a read-write Open performs.
			return nil, wrapf("store: open %s: %w (the last writer did not close it; open it read-write once to recover)", dir, ErrIncomplete)
		}
		if err := badgerCorrupt(dir, err); errors.Is(err, ErrCorrupt) {
			return nil, err
		}
		return nil, wrapf("store: open %s: %w", dir, noSpace(dir, err))
	}
	d := &DB{dir: dir, opts: opts, bdb: bdb, checked: checked, txnCount: bdb.MaxBatchCount() * 9 / 10, txnSize: bdb.MaxBatchSize() * 9 / 10}
	if err := d.initShielded(); err != nil {
		bdb.Close()
		if err := badgerCorrupt(dir, err); errors.Is(err, ErrCorrupt) {
			return nil, err
		}
		return nil, wrapf("store: open %s: %w", dir, noSpace(dir, err))
	}
	return d, nil
}

// removeEmptyLogs removes the memtable files (*.mem) and value-log files
// (*.vlog) of length 0 in dir: a writer killed between creating one and
// sizing it leaves it (Badger creates a new value log at every writable
// open), and Badger refuses to open a store with one ("while opening
// memtables ... Create a new file", "Open existing file: ... Create a new
// file"). Such a file holds nothing: a value log holds its header once
// sized, and no value pointer can name a file that never held an entry.
// The caller holds the directory's exclusive lock, so no writer is
// creating one meanwhile.
func removeEmptyLogs(dir string) error {
	for _, pattern := range []string{"*.mem", "*.vlog"} {
		files, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return err
		}
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
				if err := os.Remove(f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// badgerOptions are the Badger options of the store in dir. Block
// checksums are verified on every read (a block that fails is skipped by
// Badger's iterators, not reported: tables are verified whole once, when
// first opened, and by Verify, see checkTables).
func badgerOptions(dir string, opts Options) badger.Options {
	mt := opts.memTableSize()
	bo := badger.DefaultOptions(dir)
	// Every level's tables stay at the base size: a compaction builds its
	// tables in memory, and with tables doubling per level the builders of
	// a 14M-fact derived write held 230 MB.
	bo.TableSizeMultiplier = 1
	return bo.
		WithLogger(quietLogger{}).
		WithReadOnly(opts.ReadOnly).
		WithSyncWrites(opts.SyncWrites).
		WithMemTableSize(mt).
		WithNumMemtables(3).
		WithNumLevelZeroTables(4).
		WithNumLevelZeroTablesStall(12).
		WithBaseTableSize(baseTableSize).
		WithValueLogFileSize(64 << 20).
		WithNumVersionsToKeep(1).
		WithCompression(options.None).
		WithBlockCacheSize(0).
		WithIndexCacheSize(0).
		WithNumCompactors(2).
		WithNumGoroutines(4).
		WithMetricsEnabled(false).
		WithDetectConflicts(false).
		WithChecksumVerificationMode(options.OnBlockRead)
}

// memTableSize is MemTableSize or its default.
func (o Options) memTableSize() int64 {
	if o.MemTableSize <= 0 {
		return 16 << 20
	}
	return o.MemTableSize
}

// memTableSize is the memtable size of d.
func (d *DB) memTableSize() int64 { return d.opts.memTableSize() }

// initShielded runs init under shield.
func (d *DB) initShielded() (err error) {
	defer d.shield(&err)()
	return d.init()
}

// checkDir accepts a missing directory, an empty one, or one holding a
// Badger database (a MANIFEST file). One holding Badger's other files
// without a MANIFEST is a damaged store (a CorruptError), one holding
// other files is ErrNotStore.
func checkDir(dir string, readOnly bool) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		if readOnly {
			return wrapf("store: open %s: %w", dir, err)
		}
		return nil
	}
	if err != nil {
		return wrapf("store: open %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return wrapf("store: open %s: %w", dir, ErrNotStore)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return wrapf("store: open %s: %w", dir, err)
	}
	if len(ents) == 0 {
		return nil
	}
	var badgerFiles []string
	for _, e := range ents {
		switch name := e.Name(); {
		case name == "MANIFEST":
			return nil
		case name == "KEYREGISTRY", name == "DISCARD", strings.HasSuffix(name, ".sst"), strings.HasSuffix(name, ".vlog"):
			badgerFiles = append(badgerFiles, name)
		}
	}
	if n := len(badgerFiles); n > 0 {
		// A store that lost the file listing its tables, not a stranger's
		// directory.
		if n > 3 {
			badgerFiles = append(badgerFiles[:3], "…")
		}
		return corrupt(dir, "MANIFEST", fmt.Sprintf("missing, while %d other files of the store are there: %s", n, strings.Join(badgerFiles, ", ")))
	}
	return wrapf("store: open %s: %w", dir, ErrNotStore)
}

// init checks the format, rolls back an interrupted load, loads the
// dictionary and counters into memory and removes garbage left by
// interrupted operations.
func (d *DB) init() error {
	format, ok, err := d.getMeta(metaFormat)
	if err != nil {
		return err
	}
	if !ok {
		empty := true
		err := d.bdb.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{})
			defer it.Close()
			it.Rewind()
			empty = !it.Valid()
			return nil
		})
		if err != nil {
			return err
		}
		if !empty {
			return ErrNotStore
		}
		if !d.opts.ReadOnly {
			v := binary.BigEndian.AppendUint32(nil, formatCreate)
			if err := d.bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaFormat, v) }); err != nil {
				return err
			}
		}
		d.format = formatCreate
	} else {
		if len(format) != 4 {
			return ErrNotStore
		}
		if v := binary.BigEndian.Uint32(format); v > formatVersion {
			return fmt.Errorf("%w (format %d, this build reads %d)", ErrNewerFormat, v, formatVersion)
		}
		d.format = binary.BigEndian.Uint32(format)
	}
	pend, ok, err := d.getMeta(metaPending)
	if err != nil {
		return err
	}
	if ok {
		if d.opts.ReadOnly {
			return ErrIncomplete
		}
		rec, err := decodePending(pend)
		if err != nil {
			return err
		}
		if err := d.rollback(rec); err != nil {
			return fmt.Errorf("rolling back an interrupted load: %w", err)
		}
	}
	if err := d.loadState(); err != nil {
		return err
	}
	if !d.opts.ReadOnly {
		if err := d.collectGarbage(); err != nil {
			return fmt.Errorf("removing leftovers of interrupted operations: %w", err)
		}
	}
	return nil
}

// writable reports ErrClosed or ErrReadOnly.
func (d *DB) writable() error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return ErrClosed
	}
	if d.opts.ReadOnly {
		return ErrReadOnly
	}
	return nil
}

// open reports ErrClosed.
func (d *DB) open() error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return ErrClosed
	}
	return nil
}

// Generation returns the number of committed loads and retractions that
// changed the base facts, dictionary or splits of the store.
func (d *DB) Generation() (uint64, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return 0, ErrClosed
	}
	return d.gen, nil
}

// Dir returns the directory of the store.
func (d *DB) Dir() string { return d.dir }

// view runs fn in a read transaction after checking the store is open.
func (d *DB) view(fn func(txn *badger.Txn) error) error {
	if err := d.open(); err != nil {
		return err
	}
	if d.snap != nil {
		return badgerCorrupt(d.dir, fn(d.snap))
	}
	return badgerCorrupt(d.dir, d.bdb.View(fn))
}

// Close implements Store. Closing a read view releases its snapshot and
// leaves the store open.
func (d *DB) Close() error {
	if d.parent != nil {
		return d.closeView()
	}
	d.wmu.Lock()
	defer d.wmu.Unlock()
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return ErrClosed
	}
	d.closed = true
	d.mu.Unlock()
	if err := d.bdb.Close(); err != nil {
		return wrapf("store: close %s: %w", d.dir, err)
	}
	if !d.opts.ReadOnly {
		recordTables(d.dir, badgerOptions(d.dir, d.opts))
	}
	return nil
}

// recordTables verifies, once a writer has closed the store in dir, the
// tables it wrote (checkTables records them in VerifiedFile), so that the
// next open (explain's after an infer) reads none of their blocks. It runs
// under the directory's exclusive lock and does nothing when another
// process holds it; damage found is left for the next open to report.
func recordTables(dir string, bo badger.Options) {
	unlock, err := lockDir(dir, false)
	if err != nil {
		return
	}
	defer unlock()
	checkTables(dir, bo, false)
}

// baseTableSize is the size of the store's tables (Badger's base table
// size, kept on every level).
const baseTableSize = 4 << 20
