package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drumql/drumql/internal/rodir"
)

// smallStore writes a store of a few thousand facts into a new directory,
// closed, and returns the directory and the name of its one table.
func smallStore(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	db := mustOpen(t, dir)
	if _, err := db.Load(context.Background(), syntheticBatch(20000, "c"), nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(ssts) != 1 {
		t.Fatalf("want one table, got %v", ssts)
	}
	return dir, filepath.Base(ssts[0])
}

// copyDir copies the regular files of src into a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// damage rewrites file in dir with edit.
func damage(t *testing.T, dir, file string, edit func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Each way of damaging a store gives a CorruptError naming the file, from a
// read-only and a read-write Open alike, and never a panic.
func TestCorruptStore(t *testing.T) {
	base, sst := smallStore(t)
	vlogs, _ := filepath.Glob(filepath.Join(base, "*.vlog"))
	if len(vlogs) == 0 {
		t.Fatal("no value log")
	}
	vlog := filepath.Base(vlogs[0])
	r := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name, file string
		edit       func([]byte) []byte
		wantFile   string
		wantWhat   string
	}{
		{"random bytes mid-table", sst, func(b []byte) []byte {
			for i := len(b) / 3; i < len(b)/3+2000; i++ {
				b[i] = byte(r.UintN(256))
			}
			return b
		}, sst, "damaged block"},
		{"table cut in half", sst, func(b []byte) []byte { return b[:len(b)/2] }, sst, "truncated"},
		{"zeroed block", sst, func(b []byte) []byte {
			clear(b[len(b)/2 : len(b)/2+8192])
			return b
		}, sst, "damaged block"},
		{"table emptied", sst, func(b []byte) []byte { return nil }, sst, "truncated"},
		{"MANIFEST overwritten", "MANIFEST", func(b []byte) []byte {
			for i := 8; i < len(b); i++ {
				b[i] = 0xff
			}
			return b
		}, "MANIFEST", "orrupt"},
		{"MANIFEST cut", "MANIFEST", func(b []byte) []byte { return b[:5] }, "MANIFEST", "bad magic"},
		{"value log header", vlog, func(b []byte) []byte {
			for i := range min(20, len(b)) {
				b[i] = 0xab
			}
			return b
		}, vlog, "value log"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, base)
			damage(t, dir, c.file, c.edit)
			for _, ro := range []bool{true, false} {
				db, err := Open(dir, Options{ReadOnly: ro})
				if err == nil {
					db.Close()
					t.Fatalf("read-only %v: opened a damaged store", ro)
				}
				var ce *CorruptError
				if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
					t.Fatalf("read-only %v: got %v, want a CorruptError", ro, err)
				}
				if ce.File != c.wantFile || ce.Dir != dir || !strings.Contains(ce.What, c.wantWhat) {
					t.Errorf("read-only %v: got %q, want file %s and %q", ro, err, c.wantFile, c.wantWhat)
				}
				want := "the store at " + dir + " is corrupt (" + c.wantFile + ", "
				if !strings.HasPrefix(err.Error(), want) {
					t.Errorf("message %q does not start with %q", err, want)
				}
			}
		})
	}
	t.Run("missing table", func(t *testing.T) {
		dir := copyDir(t, base)
		os.Remove(filepath.Join(dir, sst))
		_, err := Open(dir, Options{ReadOnly: true})
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.File != sst || !strings.Contains(ce.What, "missing") {
			t.Fatalf("got %v, want a CorruptError for missing %s", err, sst)
		}
	})
}

// A table damaged while the store is open faults inside Badger's reader;
// the store's boundary turns that into a CorruptError instead of a crash.
func TestCorruptWhileOpen(t *testing.T) {
	base, sst := smallStore(t)
	dir := copyDir(t, base)
	db, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if st, err := db.Verify(context.Background()); err != nil || st.Tables != 1 || st.Keys == 0 {
		t.Fatalf("verify of an intact store: %+v, %v", st, err)
	}
	// Cut the mapped table to one page: reading past it faults.
	if err := os.Truncate(filepath.Join(dir, sst), 4096); err != nil {
		t.Fatal(err)
	}
	var got error
	n := 0
	for rel := range ID(20) {
		for _, err := range db.Scan(rel) {
			if err != nil {
				got = err
				break
			}
			n++
		}
		if got != nil {
			break
		}
	}
	if !errors.Is(got, ErrCorrupt) {
		t.Fatalf("scan of a table cut while open: %d facts, error %v; want ErrCorrupt", n, got)
	}
	t.Logf("scan after the cut: %v", got)
	if _, err := db.Verify(context.Background()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("verify: got %v, want ErrCorrupt", err)
	}
}

// A panic in the caller's loop body is not mistaken for a damaged store.
func TestLoopBodyPanicPropagates(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	if _, err := db.Load(context.Background(), syntheticBatch(100, "x"), nil); err != nil {
		t.Fatal(err)
	}
	rel, _, _ := db.Lookup("r1")
	defer func() {
		if r := recover(); r != "body" {
			t.Fatalf("recovered %v, want the body's panic", r)
		}
	}()
	for range db.Scan(rel) {
		panic("body")
	}
	t.Fatal("no fact scanned")
}

// A store that lost its MANIFEST, or whose KEYREGISTRY is damaged, is
// corrupt (not "not a drumql store", not Badger's "Encryption key
// mismatch"), naming the file; a missing KEYREGISTRY is recreated.
func TestDamagedStoreFiles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(dir string) error
		file   string // "" means: opens
	}{
		{"MANIFEST deleted", func(dir string) error { return os.Remove(filepath.Join(dir, "MANIFEST")) }, "MANIFEST"},
		{"KEYREGISTRY garbled", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "KEYREGISTRY"), []byte("garbage garbage garbage 1234"), 0o600)
		}, "KEYREGISTRY"},
		{"KEYREGISTRY cut", func(dir string) error { return os.Truncate(filepath.Join(dir, "KEYREGISTRY"), 10) }, "KEYREGISTRY"},
		{"KEYREGISTRY empty", func(dir string) error { return os.Truncate(filepath.Join(dir, "KEYREGISTRY"), 0) }, "KEYREGISTRY"},
		{"KEYREGISTRY deleted", func(dir string) error { return os.Remove(filepath.Join(dir, "KEYREGISTRY")) }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := mustOpen(t, dir)
			if _, err := db.Load(context.Background(), syntheticBatch(10, "w"), nil); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if err := tc.damage(dir); err != nil {
				t.Fatal(err)
			}
			for _, ro := range []bool{true, false} {
				db, err := Open(dir, Options{ReadOnly: ro})
				if tc.file == "" {
					if err != nil {
						t.Errorf("read-only %v: %v", ro, err)
					} else {
						db.Close()
					}
					continue
				}
				ce, ok := errors.AsType[*CorruptError](err)
				if !ok || ce.File != tc.file || !errors.Is(err, ErrCorrupt) {
					t.Errorf("read-only %v: %v, want a CorruptError of %s", ro, err, tc.file)
				}
				if err == nil {
					db.Close()
				}
			}
		})
	}
}

// Opening a store on a read-only file system (or without write permission)
// for writing fails with ErrNotWritable, before Badger tries its lock file;
// read-only it opens.
func TestOpenReadOnlyDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db := mustOpen(t, dir)
	if _, err := db.Load(context.Background(), syntheticBatch(10, "w"), nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	rodir.Make(t, dir)
	for _, d := range []string{dir, filepath.Join(dir, "new")} {
		_, err := Open(d, Options{})
		if !errors.Is(err, ErrNotWritable) || !strings.HasPrefix(err.Error(), "store: open "+d+": directory not writable (") {
			t.Errorf("Open(%s) for writing: %v, want ErrNotWritable", d, err)
		}
	}
	db, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only: %v", err)
	}
	db.Close()
}
