//go:build linux

package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// closedStore writes a small store and closes it.
func closedStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	db := mustOpen(t, dir)
	if _, err := db.Load(context.Background(), syntheticBatch(1000, "s"), nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Readers in different processes share the store; a writer is refused
// while a reader has it, and a reader while a writer has it.
func TestReadersShareWritersExclude(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := closedStore(t)
	cmd := startHelper(t, "hold-ro", dir, "OPEN")
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("a second reader: %v", err)
	}
	if n, err := ro.NumSymbols(); err != nil || n == 0 {
		t.Fatalf("reading beside another reader: %d symbols, %v", n, err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrInUse) {
		t.Fatalf("a writer beside readers: got %v, want ErrInUse", err)
	}
	ro.Close()
	cmd.Process.Kill()
	cmd.Wait()

	startHelper(t, "hold", dir, "OPEN")
	if _, err := Open(dir, Options{ReadOnly: true}); !errors.Is(err, ErrInUse) {
		t.Fatalf("a reader beside a writer: got %v, want ErrInUse", err)
	}
}

// A store that cannot be written (no write permission, or a read-only
// mount) opens read-only and answers.
func TestReadOnlyFiles(t *testing.T) {
	dir := closedStore(t)
	want := readOnlyDump(t, dir)
	if os.Geteuid() == 0 {
		// Permissions do not stop root: bind the store read-only.
		mnt := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(mnt, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mount(dir, mnt, "", syscall.MS_BIND, ""); err != nil {
			t.Skipf("skipped: cannot bind-mount here: %v", err)
		}
		t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
		if err := syscall.Mount("", mnt, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
			t.Skipf("skipped: cannot remount read-only here: %v", err)
		}
		dir = mnt
	} else {
		chmodAll(t, dir, 0o555, 0o444)
		t.Cleanup(func() { chmodAll(t, dir, 0o755, 0o644) })
	}
	got := readOnlyDump(t, dir)
	if len(got) != len(want) {
		t.Errorf("read-only files: %d keys, want %d", len(got), len(want))
	}
	if _, err := Open(dir, Options{}); err == nil {
		t.Error("a read-write open of read-only files succeeded")
	}
}

// chmodAll sets the mode of dir and of the files in it.
func chmodAll(t *testing.T, dir string, dirMode, fileMode os.FileMode) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.Chmod(filepath.Join(dir, e.Name()), fileMode)
	}
	os.Chmod(dir, dirMode)
}
