package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "new" {
		t.Fatalf("read %q, %v; want new", b, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files left in the directory, want 1", len(ents))
	}
	// A directory that does not exist: an error, nothing written.
	if err := WriteFile(filepath.Join(dir, "missing", "x"), []byte("x")); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// A new file gets 0644 masked by the umask (not CreateTemp's 0600); a file
// replaced keeps its permissions.
func TestWriteFileMode(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "new.txt")
	if err := WriteFile(path, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("new file: mode %v, %v; want -rw-r-----", fi.Mode(), err)
	}
	if err := os.Chmod(path, 0o604); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("y")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o604 {
		t.Fatalf("replaced file: mode %v, %v; want -rw----r-- kept", fi.Mode(), err)
	}
}

// Until Commit, the target is as it was and the data is in a temporary
// file beside it; Commit replaces the target, Abort removes the temporary
// file, and neither does anything after Commit.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	temps := func() []string {
		m, err := filepath.Glob(filepath.Join(dir, ".out.bin.tmp*"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("before Commit the file holds %q, want old", b)
	}
	if m := temps(); len(m) != 1 {
		t.Fatalf("temporary files %v, want one", m)
	} else if b, _ := os.ReadFile(m[0]); string(b) != "new" {
		t.Errorf("the temporary file holds %q, want new", b)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old" || len(temps()) != 0 {
		t.Errorf("after Abort: the file holds %q, temporary files %v", b, temps())
	}

	f, err = Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if err := f.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "new" || len(temps()) != 0 {
		t.Errorf("after Commit: the file holds %q, temporary files %v", b, temps())
	}
}

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path, want string
	}{
		{filepath.Join(dir, "new"), ""},
		{file, ""},
		{dir, "is a directory"},
		{filepath.Join(dir, "missing", "x"), "the directory " + filepath.Join(dir, "missing") + " does not exist"},
		{filepath.Join(file, "x"), file + " is not a directory"},
	} {
		err := CheckWritable(tt.path)
		got := ""
		if err != nil {
			got = err.Error()
			if _, ok := errors.AsType[*NotWritableError](err); !ok {
				t.Errorf("CheckWritable(%s) = %T, want a *NotWritableError", tt.path, err)
			}
		}
		if got != tt.want {
			t.Errorf("CheckWritable(%s) = %q, want %q", tt.path, got, tt.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the check left %d files in the directory, want 1 (the file there before)", len(entries))
	}
}
