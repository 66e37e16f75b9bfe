package store

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// Options configures Open. The zero value means the defaults.
type Options struct {
	// ReadOnly opens the store without writing to it; writes return
	// ErrReadOnly and an interrupted load is reported as ErrIncomplete
	// instead of being rolled back.
	ReadOnly bool
	// SyncWrites makes Badger fsync every commit. Loads and derived
	// replacements sync at their commit points either way.
	SyncWrites bool
	// MemTableSize is Badger's memtable size in bytes; 0 means 16 MiB.
	MemTableSize int64
}

// DB is the Badger-backed Store. Its methods are safe for concurrent use;
// writers (Load, Intern, ReplaceDerived, ClearDerived) are serialised.
type DB struct {
	dir  string
	opts Options
	bdb  *badger.DB

	wmu sync.Mutex // serialises writers

	mu      sync.RWMutex // guards the fields below
	closed  bool
	dict    dict
	base    map[relArity]int
	derived map[relArity]int
	gen     uint64 // last committed load generation
	dgen    uint64 // visible derived generation
	dnext   uint64 // last derived generation allocated
	splits  map[string]splitPtr
}

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
// ErrNewerFormat when a newer version wrote it, and, with ReadOnly,
// ErrIncomplete when a load was interrupted. Without ReadOnly an interrupted
// load is rolled back. Errors are wrapped with the directory.
func Open(dir string, opts Options) (*DB, error) {
	if err := checkDir(dir, opts.ReadOnly); err != nil {
		return nil, err
	}
	mt := opts.MemTableSize
	if mt <= 0 {
		mt = 16 << 20
	}
	bo := badger.DefaultOptions(dir).
		WithLogger(quietLogger{}).
		WithReadOnly(opts.ReadOnly).
		WithSyncWrites(opts.SyncWrites).
		WithMemTableSize(mt).
		WithNumMemtables(3).
		WithNumLevelZeroTables(4).
		WithNumLevelZeroTablesStall(12).
		WithBaseTableSize(4 << 20).
		WithValueLogFileSize(64 << 20).
		WithNumVersionsToKeep(1).
		WithCompression(options.None).
		WithBlockCacheSize(0).
		WithIndexCacheSize(0).
		WithNumCompactors(2).
		WithNumGoroutines(4).
		WithMetricsEnabled(false).
		WithDetectConflicts(false)
	bdb, err := badger.Open(bo)
	if err != nil {
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, fmt.Errorf("store: open %s: %w", dir, ErrInUse)
		}
		if opts.ReadOnly && strings.Contains(err.Error(), "truncate required") {
			// The last writer died: its log needs a recovery that only a
			// read-write Open performs.
			return nil, fmt.Errorf("store: open %s: %w (the last writer did not close it; open it read-write once to recover)", dir, ErrIncomplete)
		}
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	d := &DB{dir: dir, opts: opts, bdb: bdb}
	if err := d.init(); err != nil {
		bdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	return d, nil
}

// checkDir accepts a missing directory, an empty one, or one holding a
// Badger database (a MANIFEST file).
func checkDir(dir string, readOnly bool) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		if readOnly {
			return fmt.Errorf("store: open %s: %w", dir, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: open %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("store: open %s: %w", dir, ErrNotStore)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", dir, err)
	}
	if len(ents) == 0 {
		return nil
	}
	for _, e := range ents {
		if e.Name() == "MANIFEST" {
			return nil
		}
	}
	return fmt.Errorf("store: open %s: %w", dir, ErrNotStore)
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
			v := binary.BigEndian.AppendUint32(nil, formatVersion)
			if err := d.bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaFormat, v) }); err != nil {
				return err
			}
		}
	} else {
		if len(format) != 4 {
			return ErrNotStore
		}
		if v := binary.BigEndian.Uint32(format); v > formatVersion {
			return fmt.Errorf("%w (format %d, this build reads %d)", ErrNewerFormat, v, formatVersion)
		}
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

func (d *DB) getMeta(key []byte) ([]byte, bool, error) {
	var v []byte
	err := d.bdb.View(func(txn *badger.Txn) error {
		var err error
		v, err = getValue(txn, key)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	return v, err == nil, err
}

func getValue(txn *badger.Txn, key []byte) ([]byte, error) {
	item, err := txn.Get(key)
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

func getU64Meta(txn *badger.Txn, key []byte) (uint64, error) {
	v, err := getValue(txn, key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return getU64(v)
}

// scanPrefix calls fn with the key (and, if vals, the value) of every entry
// whose key starts with prefix, from start (or prefix) on, until fn returns
// false. Key and value are only valid during the call.
func scanPrefix(txn *badger.Txn, prefix, start []byte, vals bool, fn func(k, v []byte) (bool, error)) (bool, error) {
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: vals, PrefetchSize: 64, Prefix: prefix})
	defer it.Close()
	if start == nil {
		start = prefix
	}
	for it.Seek(start); it.ValidForPrefix(prefix); it.Next() {
		item := it.Item()
		var v []byte
		if vals {
			var err error
			if v, err = item.ValueCopy(nil); err != nil {
				return false, err
			}
		}
		more, err := fn(item.Key(), v)
		if err != nil || !more {
			return false, err
		}
	}
	return true, nil
}

// loadState reads the dictionary, counters and pointers into memory.
func (d *DB) loadState() error {
	d.dict = newDict()
	d.base = make(map[relArity]int)
	d.derived = make(map[relArity]int)
	d.splits = make(map[string]splitPtr)
	return d.bdb.View(func(txn *badger.Txn) error {
		var err error
		if d.gen, err = getU64Meta(txn, metaGen); err != nil {
			return err
		}
		if d.dgen, err = getU64Meta(txn, metaDerived); err != nil {
			return err
		}
		if d.dnext, err = getU64Meta(txn, metaDNext); err != nil {
			return err
		}
		d.dnext = max(d.dnext, d.dgen)
		_, err = scanPrefix(txn, []byte{tagSym}, nil, true, func(k, v []byte) (bool, error) {
			if len(k) != 5 || getID(k[1:]) != ID(len(d.dict.names)) {
				return false, fmt.Errorf("dictionary: id %x out of sequence: %w", k[1:], errCorrupt)
			}
			d.dict.add(string(v))
			return true, nil
		})
		if err != nil {
			return err
		}
		_, err = scanPrefix(txn, []byte{tagCount}, nil, true, func(k, v []byte) (bool, error) {
			n, err := getU64(v)
			if len(k) != 6 || err != nil {
				return false, errCorrupt
			}
			d.base[relArity{getID(k[1:]), int(k[5])}] = int(n)
			return true, nil
		})
		if err != nil {
			return err
		}
		_, err = scanPrefix(txn, binary.BigEndian.AppendUint64([]byte{tagDCount}, d.dgen), nil, true, func(k, v []byte) (bool, error) {
			n, err := getU64(v)
			if len(k) != 14 || err != nil {
				return false, errCorrupt
			}
			d.derived[relArity{getID(k[9:]), int(k[13])}] = int(n)
			return true, nil
		})
		if err != nil {
			return err
		}
		_, err = scanPrefix(txn, []byte{tagSplitPt}, nil, true, func(k, v []byte) (bool, error) {
			if len(v) != 16 {
				return false, errCorrupt
			}
			d.splits[string(k[1:])] = splitPtr{binary.BigEndian.Uint64(v), int(binary.BigEndian.Uint64(v[8:]))}
			return true, nil
		})
		return err
	})
}

// deleter deletes keys through a WriteBatch.
type deleter struct {
	wb *badger.WriteBatch
	n  int
}

func (d *DB) newDeleter() *deleter { return &deleter{wb: d.bdb.NewWriteBatch()} }

func (dl *deleter) del(k []byte) error {
	dl.n++
	return dl.wb.Delete(slices.Clone(k))
}

// deletePrefixes deletes every key under the prefixes.
func (d *DB) deletePrefixes(prefixes ...[]byte) error {
	dl := d.newDeleter()
	defer dl.wb.Cancel()
	err := d.bdb.View(func(txn *badger.Txn) error {
		for _, p := range prefixes {
			_, err := scanPrefix(txn, p, nil, false, func(k, _ []byte) (bool, error) {
				return true, dl.del(k)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return dl.wb.Flush()
}

// collectGarbage removes derived generations other than the visible one,
// undo logs, and split generations other than the current ones.
func (d *DB) collectGarbage() error {
	var garbage [][]byte
	err := d.bdb.View(func(txn *badger.Txn) error {
		// Derived and derived-count namespaces: seek from generation to generation.
		for _, tag := range []byte{tagDerived, tagDCount} {
			prefix := []byte{tag}
			seek := prefix
			for {
				var gen uint64
				found, err := scanPrefix(txn, prefix, seek, false, func(k, _ []byte) (bool, error) {
					if len(k) < 9 {
						return false, errCorrupt
					}
					gen = binary.BigEndian.Uint64(k[1:])
					return false, nil
				})
				if err != nil {
					return err
				}
				if found { // iteration ended: no more keys
					break
				}
				if gen != d.dgen {
					garbage = append(garbage, binary.BigEndian.AppendUint64([]byte{tag}, gen))
				}
				if gen == ^uint64(0) {
					break
				}
				seek = binary.BigEndian.AppendUint64([]byte{tag}, gen+1)
			}
		}
		// Split generations.
		seek := []byte{tagSplit}
		for {
			var name string
			var gen uint64
			found, err := scanPrefix(txn, []byte{tagSplit}, seek, false, func(k, _ []byte) (bool, error) {
				var err error
				name, gen, _, err = decodeSplitKey(k)
				return false, err
			})
			if err != nil {
				return err
			}
			if found {
				break
			}
			if ptr, ok := d.splits[name]; !ok || ptr.gen != gen {
				garbage = append(garbage, splitPrefix(name, gen))
			}
			seek = splitPrefix(name, gen+1)
		}
		return nil
	})
	if err != nil {
		return err
	}
	garbage = append(garbage, []byte{tagUndo})
	return d.deletePrefixes(garbage...)
}

// rollback removes everything the pending load rec may have written: the
// facts listed in its undo log, the symbols from rec.NSym on, its split
// entries, the undo log and finally the pending marker.
func (d *DB) rollback(rec pendingRecord) error {
	dl := d.newDeleter()
	defer dl.wb.Cancel()
	undo := binary.BigEndian.AppendUint64([]byte{tagUndo}, rec.Gen)
	err := d.bdb.View(func(txn *badger.Txn) error {
		_, err := scanPrefix(txn, undo, nil, true, func(k, v []byte) (bool, error) {
			for len(v) > 0 {
				n := int(v[0])
				if len(v) < 1+n {
					return false, errCorrupt
				}
				key := v[1 : 1+n]
				v = v[1+n:]
				if err := dl.del(key); err != nil {
					return false, err
				}
				if len(key) == 13 && key[0] == tagFwd {
					rk := revKey(nil, getID(key[1:]), getID(key[9:]), getID(key[5:]))
					if err := dl.del(rk); err != nil {
						return false, err
					}
				}
			}
			return true, dl.del(k)
		})
		if err != nil {
			return err
		}
		_, err = scanPrefix(txn, []byte{tagName}, nil, true, func(k, v []byte) (bool, error) {
			if len(v) == 4 && getID(v) >= rec.NSym {
				return true, dl.del(k)
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		_, err = scanPrefix(txn, []byte{tagSym}, putID([]byte{tagSym}, rec.NSym), false, func(k, _ []byte) (bool, error) {
			return true, dl.del(k)
		})
		if err != nil {
			return err
		}
		for _, name := range rec.Splits {
			_, err = scanPrefix(txn, splitPrefix(name, rec.Gen), nil, false, func(k, _ []byte) (bool, error) {
				return true, dl.del(k)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := dl.wb.Flush(); err != nil {
		return err
	}
	if err := d.bdb.Sync(); err != nil {
		return err
	}
	if err := d.bdb.Update(func(txn *badger.Txn) error { return txn.Delete(metaPending) }); err != nil {
		return err
	}
	return d.bdb.Sync()
}

// arena hands out byte slices carved from large blocks, so a WriteBatch can
// keep references to many small keys without one allocation each.
type arena struct{ buf []byte }

func (a *arena) alloc(n int) []byte {
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]byte, 0, max(n, 1<<20))
	}
	l := len(a.buf)
	a.buf = a.buf[:l+n]
	return a.buf[l : l : l+n]
}

func (a *arena) copy(b []byte) []byte { return append(a.alloc(len(b)), b...) }

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

func (d *DB) open() error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return ErrClosed
	}
	return nil
}

// Load implements Store. The load runs under a new generation: a pending
// marker naming it is committed first, then an undo log of the new fact
// keys, then the data (WriteBatch), then one small transaction that commits
// the generation, the counters and the split pointers and removes the
// marker. On failure, and on the next Open after a crash, the pending
// generation is rolled back.
func (d *DB) Load(ctx context.Context, b *Batch, progress func(done, total int)) (LoadStats, error) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return LoadStats{}, fmt.Errorf("store: load: %w", err)
	}
	// The dictionary only changes under wmu, which we hold.
	nsym0 := len(d.dict.names)
	txn := d.bdb.NewTransaction(false)
	defer txn.Discard()
	var kbuf []byte
	has := func(f Fact) (bool, error) {
		kbuf = factKey(kbuf[:0], f)
		_, err := txn.Get(kbuf)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	p, err := prepareBatch(ctx, b, nsym0, d.dict.lookup, has)
	if err != nil {
		return LoadStats{}, fmt.Errorf("store: load: %w", err)
	}
	txn.Discard()
	if p.empty() {
		if progress != nil {
			progress(0, 0)
		}
		return p.stats(), nil
	}
	gen := d.gen + 1
	rec := pendingRecord{Gen: gen, NSym: uint32(nsym0), Splits: p.splitNames}
	err = d.bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaPending, rec.encode()) })
	if err == nil {
		err = d.bdb.Sync()
	}
	if err != nil {
		return LoadStats{}, fmt.Errorf("store: load: %w", err)
	}
	err = d.writeLoad(ctx, p, gen, progress)
	if err == nil {
		err = d.commitLoad(p, gen)
	}
	if err != nil {
		if rerr := d.rollback(rec); rerr != nil {
			err = errors.Join(err, fmt.Errorf("rollback: %w", rerr))
		}
		return LoadStats{}, fmt.Errorf("store: load: %w", err)
	}

	d.mu.Lock()
	for _, name := range p.newNames {
		d.dict.add(name)
	}
	for ra, n := range p.added {
		d.base[ra] += n
	}
	var old [][]byte
	for name, ts := range p.splits {
		if ptr, ok := d.splits[name]; ok {
			old = append(old, splitPrefix(name, ptr.gen))
		}
		d.splits[name] = splitPtr{gen, len(ts)}
	}
	d.gen = gen
	d.mu.Unlock()
	// Cleanup failures leave garbage that the next Open removes.
	_ = d.deletePrefixes(append(old, binary.BigEndian.AppendUint64([]byte{tagUndo}, gen))...)
	return p.stats(), nil
}

// writeLoad writes the undo log, then the data of p under generation gen.
func (d *DB) writeLoad(ctx context.Context, p *prepared, gen uint64, progress func(done, total int)) error {
	var ar arena
	wb := d.bdb.NewWriteBatch()
	defer wb.Cancel()
	var chunk []byte
	seq := uint64(0)
	flushChunk := func() error {
		k := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64([]byte{tagUndo}, gen), seq)
		seq++
		err := wb.Set(k, chunk)
		chunk = nil
		return err
	}
	for _, f := range p.facts {
		if chunk == nil {
			chunk = make([]byte, 0, 64<<10)
		}
		n := 13
		if len(f.Args) != 2 {
			n = 6 + 4*len(f.Args)
		}
		chunk = append(chunk, byte(n))
		chunk = factKey(chunk, f)
		if len(chunk) > 64<<10-1100 {
			if err := flushChunk(); err != nil {
				return err
			}
		}
	}
	if len(chunk) > 0 {
		if err := flushChunk(); err != nil {
			return err
		}
	}
	if err := wb.Flush(); err != nil {
		return err
	}
	if err := d.bdb.Sync(); err != nil {
		return err
	}

	wb = d.bdb.NewWriteBatch()
	defer wb.Cancel()
	total, done := p.items(), 0
	tick := func() error {
		done++
		if done%checkEvery == 0 {
			if progress != nil {
				progress(done, total)
			}
			return ctx.Err()
		}
		return nil
	}
	for i, name := range p.newNames {
		id := ID(p.nsym0 + i)
		nk := append(append(ar.alloc(1+len(name)), tagName), name...)
		sk := putID(append(ar.alloc(5), tagSym), id)
		if err := wb.Set(nk, putID(ar.alloc(4), id)); err != nil {
			return err
		}
		if err := wb.Set(sk, ar.copy([]byte(name))); err != nil {
			return err
		}
		if err := tick(); err != nil {
			return err
		}
	}
	// Binary facts go in key order, F then R: sorted inserts are much
	// cheaper for Badger's memtable than random ones.
	var bin [][3]ID
	for _, f := range p.facts {
		if len(f.Args) == 2 {
			bin = append(bin, [3]ID{f.Rel, f.Args[0], f.Args[1]})
			continue
		}
		if err := wb.Set(naryKey(ar.alloc(6+4*len(f.Args)), f.Rel, f.Args), nil); err != nil {
			return err
		}
		if err := tick(); err != nil {
			return err
		}
	}
	slices.SortFunc(bin, func(a, b [3]ID) int { return cmpTriple(a[0], a[1], a[2], b[0], b[1], b[2]) })
	for _, t := range bin {
		if err := wb.Set(fwdKey(ar.alloc(13), t[0], t[1], t[2]), nil); err != nil {
			return err
		}
		if err := tick(); err != nil {
			return err
		}
	}
	slices.SortFunc(bin, func(a, b [3]ID) int { return cmpTriple(a[0], a[2], a[1], b[0], b[2], b[1]) })
	for _, t := range bin {
		if err := wb.Set(revKey(ar.alloc(13), t[0], t[2], t[1]), nil); err != nil {
			return err
		}
	}
	for _, name := range p.splitNames {
		prefix := splitPrefix(name, gen)
		ts := p.splits[name]
		for c := 0; c*splitChunk < len(ts); c++ {
			k := binary.BigEndian.AppendUint64(append(ar.alloc(len(prefix)+8), prefix...), uint64(c))
			chunk := ts[c*splitChunk : min(len(ts), (c+1)*splitChunk)]
			v := ar.alloc(12 * len(chunk))
			for _, t := range chunk {
				v = putID(putID(putID(v, t.S), t.R), t.O)
			}
			if err := wb.Set(k, v); err != nil {
				return err
			}
			for range chunk {
				if err := tick(); err != nil {
					return err
				}
			}
		}
	}
	if err := wb.Flush(); err != nil {
		return err
	}
	if progress != nil {
		progress(total, total)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.bdb.Sync()
}

// commitLoad makes generation gen visible in one transaction.
func (d *DB) commitLoad(p *prepared, gen uint64) error {
	err := d.bdb.Update(func(txn *badger.Txn) error {
		if err := txn.Set(metaGen, u64(gen)); err != nil {
			return err
		}
		nsym := binary.BigEndian.AppendUint32(nil, uint32(p.nsym0+len(p.newNames)))
		if err := txn.Set(metaNSym, nsym); err != nil {
			return err
		}
		for ra, n := range p.added {
			if err := txn.Set(countKey(ra.Rel, ra.Arity), u64(uint64(d.base[ra]+n))); err != nil {
				return err
			}
		}
		for name, ts := range p.splits {
			v := binary.BigEndian.AppendUint64(u64(gen), uint64(len(ts)))
			if err := txn.Set(append([]byte{tagSplitPt}, name...), v); err != nil {
				return err
			}
		}
		return txn.Delete(metaPending)
	})
	if err != nil {
		return err
	}
	return d.bdb.Sync()
}

func cmpTriple(a0, a1, a2, b0, b1, b2 ID) int {
	switch {
	case a0 != b0:
		return cmp.Compare(a0, b0)
	case a1 != b1:
		return cmp.Compare(a1, b1)
	}
	return cmp.Compare(a2, b2)
}

// splitChunk is how many triples one split entry holds.
const splitChunk = 1024

// Lookup implements Store.
func (d *DB) Lookup(name string) (ID, bool, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return 0, false, ErrClosed
	}
	id, ok := d.dict.lookup(name)
	return id, ok, nil
}

// Intern implements Store.
func (d *DB) Intern(name string) (ID, error) {
	if id, ok, err := d.Lookup(name); err != nil || ok {
		return id, err
	}
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return 0, fmt.Errorf("store: intern %q: %w", name, err)
	}
	if id, ok := d.dict.lookup(name); ok {
		return id, nil
	}
	id := ID(len(d.dict.names))
	err := d.bdb.Update(func(txn *badger.Txn) error {
		if err := txn.Set(append([]byte{tagName}, name...), putID(nil, id)); err != nil {
			return err
		}
		if err := txn.Set(putID([]byte{tagSym}, id), []byte(name)); err != nil {
			return err
		}
		return txn.Set(metaNSym, putID(nil, id+1))
	})
	if err != nil {
		return 0, fmt.Errorf("store: intern %q: %w", name, err)
	}
	d.mu.Lock()
	d.dict.add(name)
	d.mu.Unlock()
	return id, nil
}

// Name implements Store.
func (d *DB) Name(id ID) (string, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return "", ErrClosed
	}
	if int(id) >= len(d.dict.names) {
		return "", fmt.Errorf("store: name of %d: %w", id, ErrUnknownID)
	}
	return d.dict.names[id], nil
}

// NumSymbols implements Store.
func (d *DB) NumSymbols() (int, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return 0, ErrClosed
	}
	return len(d.dict.names), nil
}

// Relations implements Store.
func (d *DB) Relations() ([]RelationStats, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, ErrClosed
	}
	return relationsFrom(d.base, d.derived, func(id ID) string { return d.dict.names[id] }), nil
}

// Count implements Store.
func (d *DB) Count(rel ID) (int, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return 0, ErrClosed
	}
	n := 0
	for ra, c := range d.base {
		if ra.Rel == rel {
			n += c
		}
	}
	return n, nil
}

// Generation returns the number of committed loads that changed the store.
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
	return d.bdb.View(fn)
}

// scanFacts yields the decoded keys under prefix (from start, if not nil).
func scanFacts(txn *badger.Txn, prefix, start []byte, yield func(Fact, error) bool) (bool, error) {
	return scanPrefix(txn, prefix, start, false, func(k, _ []byte) (bool, error) {
		f, err := decodeFactKey(k)
		if err != nil {
			return false, err
		}
		return yield(f, nil), nil
	})
}

// Scan implements Store: facts come sorted by arity, then arguments.
func (d *DB) Scan(rel ID) iter.Seq2[Fact, error] {
	return func(yield func(Fact, error) bool) {
		nrel := putID([]byte{tagNary}, rel)
		err := d.view(func(txn *badger.Txn) error {
			for _, a := range []byte{0, 1} {
				if more, err := scanFacts(txn, append(slices.Clip(nrel), a), nil, yield); !more || err != nil {
					return err
				}
			}
			if more, err := scanFacts(txn, putID([]byte{tagFwd}, rel), nil, yield); !more || err != nil {
				return err
			}
			_, err := scanFacts(txn, nrel, append(slices.Clip(nrel), 3), yield)
			return err
		})
		if err != nil {
			yield(Fact{}, fmt.Errorf("store: scan %d: %w", rel, err))
		}
	}
}

// ScanFirst implements Store.
func (d *DB) ScanFirst(rel, a ID) iter.Seq2[Fact, error] {
	return func(yield func(Fact, error) bool) {
		d.mu.RLock()
		as := arities(d.base, rel)
		d.mu.RUnlock()
		err := d.view(func(txn *badger.Txn) error {
			for _, ar := range as {
				if ar == 0 {
					continue
				}
				var prefix []byte
				if ar == 2 {
					prefix = putID(putID([]byte{tagFwd}, rel), a)
				} else {
					prefix = putID(append(putID([]byte{tagNary}, rel), byte(ar)), a)
				}
				if more, err := scanFacts(txn, prefix, nil, yield); !more || err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			yield(Fact{}, fmt.Errorf("store: scan %d first %d: %w", rel, a, err))
		}
	}
}

// ScanObject implements Store.
func (d *DB) ScanObject(rel, o ID) iter.Seq2[Fact, error] {
	return func(yield func(Fact, error) bool) {
		err := d.view(func(txn *badger.Txn) error {
			_, err := scanFacts(txn, putID(putID([]byte{tagRev}, rel), o), nil, yield)
			return err
		})
		if err != nil {
			yield(Fact{}, fmt.Errorf("store: scan %d object %d: %w", rel, o, err))
		}
	}
}

// Has implements Store.
func (d *DB) Has(f Fact) (bool, error) {
	if len(f.Args) > maxArity {
		return false, nil
	}
	found := false
	err := d.view(func(txn *badger.Txn) error {
		_, err := txn.Get(factKey(nil, f))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: has: %w", err)
	}
	return found, nil
}

// Splits implements Store.
func (d *DB) Splits() ([]string, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, ErrClosed
	}
	names := make([]string, 0, len(d.splits))
	for name := range d.splits {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// Split implements Store.
func (d *DB) Split(name string) iter.Seq2[Triple, error] {
	return func(yield func(Triple, error) bool) {
		err := d.view(func(txn *badger.Txn) error {
			item, err := txn.Get(append([]byte{tagSplitPt}, name...))
			if errors.Is(err, badger.ErrKeyNotFound) {
				return ErrUnknownSplit
			}
			if err != nil {
				return err
			}
			v, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			gen, err := getU64(v[:min(8, len(v))])
			if err != nil {
				return err
			}
			_, err = scanPrefix(txn, splitPrefix(name, gen), nil, true, func(_, v []byte) (bool, error) {
				if len(v)%12 != 0 {
					return false, errCorrupt
				}
				for ; len(v) > 0; v = v[12:] {
					t, err := decodeTriple(v[:12])
					if err != nil {
						return false, err
					}
					if !yield(t, nil) {
						return false, nil
					}
				}
				return true, nil
			})
			return err
		})
		if err != nil {
			yield(Triple{}, fmt.Errorf("store: split %q: %w", name, err))
		}
	}
}

// ReplaceDerived implements Store. The facts are written under a new derived
// generation; one small transaction then points the store at it, and the old
// generation is deleted afterwards.
func (d *DB) ReplaceDerived(ctx context.Context, ds []Derived) error {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return fmt.Errorf("store: replace derived: %w", err)
	}
	if err := d.replaceDerived(ctx, ds); err != nil {
		return fmt.Errorf("store: replace derived: %w", err)
	}
	return nil
}

func (d *DB) replaceDerived(ctx context.Context, ds []Derived) error {
	idx, err := dedupDerived(ctx, ds)
	if err != nil {
		return err
	}
	gen := d.dnext + 1
	if err := d.bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaDNext, u64(gen)) }); err != nil {
		return err
	}
	d.dnext = gen
	genPrefix := binary.BigEndian.AppendUint64([]byte{tagDerived}, gen)
	counts := make(map[relArity]int)
	var ar arena
	var vbuf []byte
	wb := d.bdb.NewWriteBatch()
	write := func() error {
		for n, i := range idx {
			if n%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			x := &ds[i]
			k := derivedKey(ar.alloc(14+4*len(x.Fact.Args)), gen, x.Fact)
			vbuf = encodeDerivedValue(vbuf[:0], x.Confidence, x.Prov)
			if err := wb.Set(k, ar.copy(vbuf)); err != nil {
				return err
			}
			counts[relArity{x.Fact.Rel, len(x.Fact.Args)}]++
		}
		if err := wb.Flush(); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return d.bdb.Sync()
	}
	err = write()
	if err == nil {
		err = d.bdb.Update(func(txn *badger.Txn) error {
			for ra, n := range counts {
				if err := txn.Set(dcountKey(gen, ra.Rel, ra.Arity), u64(uint64(n))); err != nil {
					return err
				}
			}
			return txn.Set(metaDerived, u64(gen))
		})
	}
	if err != nil {
		wb.Cancel()
		// The new generation is garbage; the next Open removes what this misses.
		_ = d.deletePrefixes(genPrefix, binary.BigEndian.AppendUint64([]byte{tagDCount}, gen))
		return err
	}
	if err := d.bdb.Sync(); err != nil {
		return err
	}
	d.mu.Lock()
	old := d.dgen
	d.dgen = gen
	d.derived = counts
	d.mu.Unlock()
	_ = d.deletePrefixes(binary.BigEndian.AppendUint64([]byte{tagDerived}, old),
		binary.BigEndian.AppendUint64([]byte{tagDCount}, old))
	return nil
}

// ClearDerived implements Store.
func (d *DB) ClearDerived() error {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if err := d.writable(); err != nil {
		return fmt.Errorf("store: clear derived: %w", err)
	}
	if err := d.replaceDerived(context.Background(), nil); err != nil {
		return fmt.Errorf("store: clear derived: %w", err)
	}
	return nil
}

// derivedGen reads the visible derived generation inside txn.
func derivedGen(txn *badger.Txn) (uint64, error) { return getU64Meta(txn, metaDerived) }

// ScanDerived implements Store: facts come sorted by arity, then arguments.
func (d *DB) ScanDerived(rel ID) iter.Seq2[Derived, error] {
	return func(yield func(Derived, error) bool) {
		err := d.view(func(txn *badger.Txn) error {
			gen, err := derivedGen(txn)
			if err != nil {
				return err
			}
			prefix := putID(binary.BigEndian.AppendUint64([]byte{tagDerived}, gen), rel)
			_, err = scanPrefix(txn, prefix, nil, true, func(k, v []byte) (bool, error) {
				_, f, err := decodeDerivedKey(k)
				if err != nil {
					return false, err
				}
				conf, prov, err := decodeDerivedValue(v)
				if err != nil {
					return false, err
				}
				return yield(Derived{Fact: f, Confidence: conf, Prov: prov}, nil), nil
			})
			return err
		})
		if err != nil {
			yield(Derived{}, fmt.Errorf("store: scan derived %d: %w", rel, err))
		}
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
		v, err := getValue(txn, derivedKey(nil, gen, f))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		conf, prov, err := decodeDerivedValue(v)
		if err != nil {
			return err
		}
		out, found = Derived{Fact: cloneFact(f), Confidence: conf, Prov: prov}, true
		return nil
	})
	if err != nil {
		return Derived{}, false, fmt.Errorf("store: get derived: %w", err)
	}
	return out, found, nil
}

// Snapshot implements Store with one key-only pass over the F key space.
func (d *DB) Snapshot(ctx context.Context) (*Snapshot, error) {
	d.mu.RLock()
	nsym := len(d.dict.names)
	counts := make(map[ID]int)
	for ra, n := range d.base {
		if ra.Arity == 2 {
			counts[ra.Rel] = n
		}
	}
	d.mu.RUnlock()
	sb := &snapBuilder{nsym: nsym}
	err := d.view(func(txn *badger.Txn) error {
		prefix := []byte{tagFwd}
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false, Prefix: prefix})
		defer it.Close()
		cur := ID(0)
		var es []uint32
		n := 0
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			k := it.Item().Key()
			if len(k) != 13 {
				return errCorrupt
			}
			rel := getID(k[1:])
			if es == nil || rel != cur {
				if es != nil {
					sb.edges[len(sb.edges)-1] = es
				}
				cur = rel
				es = make([]uint32, 0, 2*counts[rel])
				sb.rels = append(sb.rels, rel)
				sb.edges = append(sb.edges, nil)
			}
			es = append(es, getID(k[5:]), getID(k[9:]))
			if n++; n%(1<<16) == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
		}
		if es != nil {
			sb.edges[len(sb.edges)-1] = es
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: snapshot: %w", err)
	}
	snap, err := sb.build(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: snapshot: %w", err)
	}
	return snap, nil
}

// Close implements Store.
func (d *DB) Close() error {
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
		return fmt.Errorf("store: close %s: %w", d.dir, err)
	}
	return nil
}

// rawDump returns every live key and value, for tests.
func (d *DB) rawDump() (map[string]string, error) {
	m := make(map[string]string)
	err := d.view(func(txn *badger.Txn) error {
		_, err := scanPrefix(txn, nil, nil, true, func(k, v []byte) (bool, error) {
			m[string(k)] = string(v)
			return true, nil
		})
		return err
	})
	return m, err
}
