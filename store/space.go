package store

import (
	"errors"
	"fmt"
	"syscall"
)

// ErrNoSpace is returned, wrapped with the directory and the sizes, when the
// file system of a store has too little free space for a write. Badger
// writes through memory-mapped files, where a full device raises a signal
// that kills the process instead of an error, so writers check first.
var ErrNoSpace = errors.New("store: no space left on the device")

// Free-space margins. A write of n bytes of keys and values passes through
// the write-ahead log, a level-0 table and, during compaction, a copy of
// that table before the old files are deleted: writeAmplification times n.
// minFreeSpace more is kept for Badger's own files (manifest, discard
// stats, value-log headers) and for what other processes write meanwhile.
const (
	writeAmplification = 3
	minFreeSpace       = 4 << 20
)

// entryOverhead is the per-entry bookkeeping of Badger (header, version,
// table index) counted on top of key and value bytes.
const entryOverhead = 24

// checkSpace returns an ErrNoSpace error when the file system holding dir
// (or its nearest existing parent) has fewer than
// writeAmplification*need + minFreeSpace bytes free for an unprivileged
// writer. what names the write in the message.
func checkSpace(dir string, need int64, what string) error {
	free, ok := freeBytes(dir)
	if !ok {
		return nil // unknown: let the write try
	}
	want := writeAmplification*need + minFreeSpace
	if free >= want {
		return nil
	}
	return fmt.Errorf("%w at %s: %s needs about %s free, %s is free", ErrNoSpace, dir, what, mib(want), mib(free))
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

// DerivedSize estimates the bytes a store writes for the derived fact d:
// its key, its value and Badger's bookkeeping.
func DerivedSize(d *Derived) int64 {
	n := int64(14+4*len(d.Fact.Args)) + 4 + int64(len(d.Prov.Rule)) + 2 + entryOverhead
	for _, f := range d.Prov.Body {
		n += int64(2 + 5*len(f.Args) + 5)
	}
	return n
}

// derivedBytes estimates the bytes ReplaceDerived writes for ds plus the
// deletion markers of the old derived facts, old of them.
func derivedBytes(ds []Derived, old int) int64 {
	var n int64
	for i := range ds {
		n += DerivedSize(&ds[i])
	}
	return n + oldDerivedBytes(old)
}

// oldDerivedBytes estimates the deletion markers of old derived facts.
func oldDerivedBytes(old int) int64 { return int64(old) * (20 + entryOverhead) }
