package store

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// VerifiedFile is the file in the store's directory that lists the tables
// whose every block checksum an Open (or Verify) has checked, each with the
// stamp of its file at that time (see tableStamp). Badger never changes a
// table once written, so a table whose file still has its stamp need not be
// read in full again: Open then checks only its footer and index. The file
// is a cache: a missing, torn or garbage one means nothing is verified, it
// is rewritten whole (a new file renamed over it) and never synced, and
// removing it is always safe.
const VerifiedFile = "TABLES-VERIFIED"

// verifiedMagic starts VerifiedFile; the last byte is its version.
var verifiedMagic = [8]byte{'d', 'r', 'u', 'm', 'q', 'l', 'T', 1}

// verifiedEntry is the size of an entry of VerifiedFile: the table's id
// and the five fields of its stamp.
const verifiedEntry = 6 * 8

// tableStamp is what changes when a table file does: its size, its
// modification time, its inode and, where the system has one, its
// status-change time (ctime), which a write always sets to the current
// time and which no user can set back. On Linux a table whose bytes were
// rewritten in place, even with its modification time restored, has a new
// stamp.
type tableStamp struct {
	Size, Mtime, Ctime int64
	Ino, Dev           uint64
}

// verified is VerifiedFile as read: the stamps of the verified tables, and
// the file's own modification time.
type verified struct {
	stamps map[uint64]tableStamp
	mtime  int64
}

// trusts reports whether table id, whose file has stamp st now, was
// verified with that stamp. A stamp whose times are not older than the
// file that recorded it is not trusted: the file system's clock has a
// granularity (a few milliseconds, up to seconds), and a table rewritten
// within the same tick as its last change keeps its times. The list is
// written after its tables were read, so a change made after the check
// but within the tick of the table's stamp is within the tick of the list
// or earlier; the same rule as git's index.
func (v verified) trusts(id uint64, st tableStamp) bool {
	old, ok := v.stamps[id]
	return ok && old == st && st.Mtime < v.mtime && st.Ctime < v.mtime
}

// readVerified reads VerifiedFile in dir. Anything but a whole, valid file
// (missing, truncated, a bad checksum, a count that does not fit) gives an
// empty list.
func readVerified(dir string) verified {
	v := verified{stamps: map[uint64]tableStamp{}}
	f, err := os.Open(filepath.Join(dir, VerifiedFile))
	if err != nil {
		return v
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() > 64<<20 || fi.Size() < 16 {
		return v
	}
	b := make([]byte, fi.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		return v
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum || [8]byte(body[:8]) != verifiedMagic {
		return v
	}
	n := binary.LittleEndian.Uint32(body[8:])
	if int64(len(body)-12) != int64(n)*verifiedEntry {
		return v
	}
	for e := body[12:]; len(e) > 0; e = e[verifiedEntry:] {
		u := func(i int) uint64 { return binary.LittleEndian.Uint64(e[8*i:]) }
		v.stamps[u(0)] = tableStamp{Size: int64(u(1)), Mtime: int64(u(2)), Ctime: int64(u(3)), Ino: u(4), Dev: u(5)}
	}
	v.mtime = fileStampOf(fi).Mtime
	return v
}

// writeVerified replaces VerifiedFile in dir by the list of stamps: a new
// file renamed over the old one, so that a reader sees the old list or the
// new one (a crash may leave a torn new one, which readVerified ignores).
// It is not synced: losing it costs one full check. Leftovers of writers
// that died more than a minute ago are removed.
func writeVerified(dir string, stamps map[uint64]tableStamp) error {
	ids := slices.Sorted(func(yield func(uint64) bool) {
		for id := range stamps {
			if !yield(id) {
				return
			}
		}
	})
	b := append([]byte(nil), verifiedMagic[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ids)))
	for _, id := range ids {
		st := stamps[id]
		for _, x := range []uint64{id, uint64(st.Size), uint64(st.Mtime), uint64(st.Ctime), st.Ino, st.Dev} {
			b = binary.LittleEndian.AppendUint64(b, x)
		}
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	if old, err := filepath.Glob(filepath.Join(dir, VerifiedFile+".tmp*")); err == nil {
		for _, p := range old {
			if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > time.Minute {
				os.Remove(p)
			}
		}
	}
	f, err := os.CreateTemp(dir, VerifiedFile+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err = errors.Join(err, f.Close()); err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, VerifiedFile))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// statTable returns the stamp of the file at path.
func statTable(path string) (tableStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return tableStamp{}, err
	}
	return fileStampOf(fi), nil
}
