package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNoSpace is returned, wrapped with the directory and the sizes, when the
// file system of a store has too little free space for a write. Badger
// writes through memory-mapped files, where a full device raises a signal
// that kills the process instead of an error, so writers check first.
var ErrNoSpace = errors.New("store: no space left on the device")

// Free-space margins. A load of n bytes of keys and values passes through
// the write-ahead log, a level-0 table and, during compaction, a copy of
// that table before the old files are deleted: loadAmplification times n.
// A derived write is measured (TestDerivedSpaceEstimate): DerivedSize
// already counts its transient copies. minFreeSpace more is kept for
// Badger's own files (manifest, discard stats, value-log headers) and for
// what other processes write meanwhile.
const (
	loadAmplification = 3
	minFreeSpace      = 4 << 20
)

// entryOverhead is the per-entry bookkeeping of Badger (header, version,
// table index) counted on top of key and value bytes.
const entryOverhead = 24

// checkSpace returns an ErrNoSpace error when the file system holding dir
// (or its nearest existing parent) has fewer than need + minFreeSpace
// bytes free for an unprivileged writer. what names the write in the
// message.
func checkSpace(dir string, need int64, what string) error {
	if noSpaceCheck {
		return nil
	}
	free, ok := freeBytes(dir)
	if !ok {
		return nil // unknown: let the write try
	}
	want := need + minFreeSpace
	if free >= want {
		return nil
	}
	return fmt.Errorf("%w at %s: %s needs about %s free, %s is free", ErrNoSpace, dir, what, mib(want), mib(free))
}

// noSpaceCheck turns checkSpace off. Only a build with the tag
// drumql_nospacecheck sets it (nospacecheck.go): tests of what happens when
// a device fills during a write, after the check passed (another process
// filled it, or the write took more than estimated), use such a build to
// make that happen without a race against a second writer.
var noSpaceCheck = false

// LowOnSpace reports whether the file system holding dir (or its nearest
// existing parent) is known to have less free space than the margin a
// writer keeps: what a device looks like after a write filled it. It is
// false when the free space cannot be read.
func LowOnSpace(dir string) bool {
	free, ok := freeBytes(dir)
	return ok && free < minFreeSpace
}

// unfinishedLog reports whether dir holds the log of a write that did not
// finish: a memtable file (*.mem; a store closed cleanly has none) with a
// part the file system has not allocated. Badger maps those files and
// replays them when it opens the store; reading past their written part
// allocates a page on some file systems (tmpfs), and on a full device that
// raises SIGBUS, which kills the process instead of an error.
func unfinishedLog(dir string) bool {
	mems, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	for _, f := range mems {
		if fi, err := os.Stat(f); err == nil && fi.Size() > allocatedBytes(f) {
			return true
		}
	}
	return false
}

// checkLogSpace returns an ErrNoSpace error when dir holds the log of a
// write that did not finish (unfinishedLog) and its file system has less
// free space than the margin a writer keeps: what a reader checks before
// opening the store, as a writer checks before writing (a write that
// faulted on a full device leaves that log behind it). Unlike checkSpace,
// a build that turns the writers' checks off (drumql_nospacecheck) keeps
// it.
func checkLogSpace(dir string) error {
	if !unfinishedLog(dir) {
		return nil
	}
	free, ok := freeBytes(dir)
	if !ok || free >= minFreeSpace {
		return nil
	}
	return fmt.Errorf("%w at %s: opening the store replays the log of a write that did not finish, which needs about %s free, %s is free",
		ErrNoSpace, dir, mib(minFreeSpace), mib(free))
}

// mib formats a byte count in MiB with one decimal.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// noSpace rewrites an out-of-space error of the file system (a write or a
// file creation that returned ENOSPC) as ErrNoSpace at dir.
func noSpace(dir string, err error) error {
	if err != nil && errors.Is(err, syscall.ENOSPC) && !errors.Is(err, ErrNoSpace) {
		return fmt.Errorf("%w at %s (%v)", ErrNoSpace, dir, err)
	}
	return err
}

// loadBytes estimates the key and value bytes a load of p writes: the
// dictionary entries, the undo log, both indexes of every binary fact, the
// n-ary facts and the splits.
func (p *prepared) loadBytes() int64 {
	var n int64
	for _, name := range p.newNames {
		n += 2*int64(len(name)) + 10 + 2*entryOverhead
	}
	for _, f := range p.facts {
		k := int64(6 + 4*len(f.Args))
		if len(f.Args) == 2 {
			k = 13
			n += k + entryOverhead // the reverse index
		}
		n += 2*k + 1 + entryOverhead // the key and its undo-log copy
	}
	for name, ts := range p.splits {
		n += 12*int64(len(ts)) + int64(len(ts)/splitChunk+1)*(int64(len(name))+19+entryOverhead)
	}
	return n
}

// DerivedSize estimates the bytes a store takes to write the derived fact
// d, at the peak of the write: its key and value (the rule is a reference
// to the generation's rule table, not its text), Badger's bookkeeping, and
// the write-ahead log and table copies in flight. A test measures the
// estimate against the growth of a store.
func DerivedSize(d *Derived) int64 {
	n := int64(14+4*len(d.Fact.Args)) + 4 + 2 + uvarintLen(uint64(len(d.Prov.Body)))
	for _, f := range d.Prov.Body {
		n += uvarintLen(uint64(f.Rel)) + uvarintLen(uint64(len(f.Args)))
		for _, a := range f.Args {
			n += uvarintLen(uint64(a))
		}
	}
	return n + entryOverhead
}

// uvarintLen is the length of the uvarint encoding of v.
func uvarintLen(v uint64) int64 {
	n := int64(1)
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// derivedBytes sums DerivedSize over ds.
func derivedBytes(ds []Derived) int64 {
	var n int64
	for i := range ds {
		n += DerivedSize(&ds[i])
	}
	return n
}

// derivedNeed estimates the free space a derived write of size bytes (a
// sum of DerivedSize) takes at its peak, replacing old derived facts: while
// a memtable is flushed its log and its new table are both on disk, which
// adds up to half a memtable of data to the written bytes (measured by
// TestDerivedSpaceEstimate).
func derivedNeed(size int64, memTable int64, old int) int64 {
	return size + min(size, memTable)/2 + oldDerivedBytes(old)
}

// oldDerivedBytes estimates what dropping old derived facts takes: the
// old generation goes with whole tables (dropPrefixes), and at most the
// tables it shares with other keys, one at each end of the range on each
// level, are rewritten: never more than the old facts themselves.
func oldDerivedBytes(old int) int64 {
	return min(int64(old)*(22+entryOverhead), 2*7*baseTableSize)
}
