package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// waitClock waits until a file written in dir gets a modification time
// later than the last change of the file at path: the file system's clock
// (which has a granularity) has moved past it.
func waitClock(t *testing.T, dir, path string) {
	t.Helper()
	st, err := statTable(path)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(dir, "clock-probe")
	defer os.Remove(probe)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if err := os.WriteFile(probe, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := statTable(probe)
		if err != nil {
			t.Fatal(err)
		}
		if p.Mtime > max(st.Mtime, st.Ctime) {
			return
		}
	}
	t.Fatal("the file system's clock did not move in 5 s")
}

// openChecks opens dir read-only and returns what its table check did.
func openChecks(t *testing.T, dir string) tableChecks {
	t.Helper()
	db, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return db.checked
}

// verifiedStore is a store of one table that an Open has verified and
// recorded in VerifiedFile, and the path of its table.
func verifiedStore(t *testing.T) (string, string) {
	t.Helper()
	base, sst := smallStore(t)
	dir := copyDir(t, base)
	path := filepath.Join(dir, sst)
	waitClock(t, dir, path)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if c := openChecks(t, dir); c != (tableChecks{Tables: 1, Full: 1, FullBytes: fi.Size()}) {
		t.Fatalf("first open checked %+v, want the one table in full (%d bytes)", c, fi.Size())
	}
	return dir, path
}

// A table verified by one Open is not read in full by the next ones (its
// footer and index only); Verify still reads every block.
func TestOpenVerifiesTableOnce(t *testing.T) {
	dir, _ := verifiedStore(t)
	for i := range 3 {
		if c := openChecks(t, dir); c != (tableChecks{Tables: 1}) {
			t.Fatalf("open %d after the first checked %+v, want one table and no block", i+2, c)
		}
	}
	db, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if st, err := db.Verify(context.Background()); err != nil || st.Tables != 1 {
		t.Fatalf("verify: %+v, %v", st, err)
	}
}

// A table changed after it was verified is checked in full again and its
// damage reported by Open: bytes rewritten in place (also with the
// modification time set back: the ctime still moves, on Linux), the file
// cut, grown, or replaced by a copy.
func TestOpenCatchesChangedVerifiedTable(t *testing.T) {
	flip := func(b []byte) []byte {
		for i := len(b) / 3; i < len(b)/3+64; i++ {
			b[i] ^= 0x5a
		}
		return b
	}
	for _, c := range []struct {
		name      string
		edit      func(t *testing.T, path string)
		wantWhat  string
		linuxOnly bool
	}{
		{"bytes flipped", func(t *testing.T, path string) { rewrite(t, path, flip, false) }, "damaged block", false},
		{"bytes flipped, mtime restored", func(t *testing.T, path string) { rewrite(t, path, flip, true) }, "damaged block", true},
		{"bytes flipped, size and mtime kept, copied over", func(t *testing.T, path string) {
			b, _ := os.ReadFile(path)
			tmp := path + ".new"
			if err := os.WriteFile(tmp, flip(b), 0o644); err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(path)
			os.Chtimes(tmp, fi.ModTime(), fi.ModTime())
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}, "damaged block", true},
		{"block cut out", func(t *testing.T, path string) {
			rewrite(t, path, func(b []byte) []byte { return append(b[:len(b)/3], b[len(b)/3+4096:]...) }, false)
		}, "damaged", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.linuxOnly && runtime.GOOS != "linux" {
				t.Skip("the stamp has no ctime on this system")
			}
			dir, path := verifiedStore(t)
			c.edit(t, path)
			_, err := Open(dir, Options{ReadOnly: true})
			ce, ok := errors.AsType[*CorruptError](err)
			if !ok || ce.File != filepath.Base(path) || !strings.Contains(ce.What, c.wantWhat) {
				t.Fatalf("open after the change: %v, want a CorruptError of %s (%s)", err, filepath.Base(path), c.wantWhat)
			}
		})
	}
}

// rewrite writes edit's result over the file at path, in place; with
// keepMtime it sets the modification time back to what it was.
func rewrite(t *testing.T, path string, edit func([]byte) []byte, keepMtime bool) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
	if keepMtime {
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if after, _ := os.Stat(path); !after.ModTime().Equal(fi.ModTime()) {
			t.Fatal("the modification time was not restored")
		}
	}
}

// A VerifiedFile that is torn, garbage, has a bad checksum, or is not
// newer than the table, verifies nothing: the table is checked in full
// (and its damage found), and the file is rewritten whole.
func TestVerifiedFileNotTrusted(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(t *testing.T, vf, table string)
	}{
		{"missing", func(t *testing.T, vf, _ string) { os.Remove(vf) }},
		{"empty", func(t *testing.T, vf, _ string) { os.Truncate(vf, 0) }},
		{"torn", func(t *testing.T, vf, _ string) {
			fi, _ := os.Stat(vf)
			os.Truncate(vf, fi.Size()-7)
		}},
		{"garbage", func(t *testing.T, vf, _ string) { os.WriteFile(vf, []byte(strings.Repeat("garbage!", 100)), 0o644) }},
		{"bad checksum", func(t *testing.T, vf, _ string) {
			b, _ := os.ReadFile(vf)
			b[len(b)-1] ^= 1
			os.WriteFile(vf, b, 0o644)
		}},
		{"not newer than the table", func(t *testing.T, vf, table string) {
			fi, _ := os.Stat(table)
			os.Chtimes(vf, fi.ModTime(), fi.ModTime().Add(-time.Second))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, path := verifiedStore(t)
			vf := filepath.Join(dir, VerifiedFile)
			c.edit(t, vf, path)
			if got := openChecks(t, dir); got.Full != 1 {
				t.Fatalf("open checked %+v, want the table in full", got)
			}
			if v := readVerified(dir); len(v.stamps) != 1 {
				t.Fatalf("VerifiedFile not rewritten: %d entries", len(v.stamps))
			}
			c.edit(t, vf, path)
			rewrite(t, path, func(b []byte) []byte {
				clear(b[len(b)/2 : len(b)/2+4096])
				return b
			}, true)
			if _, err := Open(dir, Options{ReadOnly: true}); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("open of a damaged table: %v, want ErrCorrupt", err)
			}
		})
	}
}

// A change that keeps the table's stamp (bit rot on the device: no write
// through the file system) passes Open, whose check trusts the stamp, and
// is caught by Verify, which reads every block. Badger's own check of each
// block it reads does not report a mismatch (its table iterators end at
// such a block, and a lookup misses), which is why Open verifies a table
// in full once and Verify always does; what a scan reads is logged.
func TestBitRotCaughtByVerify(t *testing.T) {
	dir, path := verifiedStore(t)
	rewrite(t, path, func(b []byte) []byte {
		for i := len(b) / 2; i < len(b)/2+64; i++ {
			b[i] ^= 0xff
		}
		return b
	}, true)
	st, err := statTable(path)
	if err != nil {
		t.Fatal(err)
	}
	// Record the damaged table as verified, as if the device had changed
	// its bytes after the check without the file system knowing.
	id := readVerified(dir).stamps
	for k := range id {
		id[k] = st
	}
	if err := writeVerified(dir, id); err != nil {
		t.Fatal(err)
	}
	waitClock(t, dir, path)
	later := time.Now().Add(time.Second)
	os.Chtimes(filepath.Join(dir, VerifiedFile), later, later)
	db, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("open trusting the stamp: %v", err)
	}
	defer db.Close()
	if db.checked.Full != 0 {
		t.Fatalf("open checked %+v, want no table in full", db.checked)
	}
	n := 0
	for rel := range ID(40) {
		for _, err := range db.Scan(rel) {
			if err != nil {
				t.Logf("scan: %v", err)
				break
			}
			n++
		}
	}
	t.Logf("scans of the damaged store read %d of its 20000 facts", n)
	if _, err := db.Verify(context.Background()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("verify: %v, want ErrCorrupt", err)
	}
}

// A writer's Close verifies the tables it wrote and records them with
// their stamps, so that the next open need not read them.
func TestCloseRecordsTables(t *testing.T) {
	dir, _ := smallStore(t) // a load, then Close
	ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	v := readVerified(dir)
	if len(ssts) == 0 || len(v.stamps) != len(ssts) {
		t.Fatalf("%d tables, %d recorded", len(ssts), len(v.stamps))
	}
	for _, p := range ssts {
		st, err := statTable(p)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, old := range v.stamps {
			found = found || old == st
		}
		if !found {
			t.Errorf("%s: stamp %+v not recorded", filepath.Base(p), st)
		}
	}
}
