package store_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/drumql/drumql/store"
)

// repoRoot walks up from the working directory to the directory of go.mod.
func repoRoot(tb testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// dataset returns the directory of a benchmark dataset: $DRUMQL_DATASETS/name,
// by default ../shared/datasets/name next to the repository. It skips the
// benchmark when the dataset is absent.
func dataset(b *testing.B, name string) string {
	root := os.Getenv("DRUMQL_DATASETS")
	if root == "" {
		root = filepath.Join(repoRoot(b), "..", "shared", "datasets")
	}
	dir := filepath.Join(root, name)
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("dataset %s not found (set DRUMQL_DATASETS to the folder holding it): %v", name, err)
	}
	return dir
}

// diskBytes is the space the files under dir occupy on disk.
func diskBytes(b *testing.B, dir string) float64 {
	var n int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					n += st.Blocks * 512
				} else {
					n += fi.Size()
				}
			}
		}
		return nil
	})
	return float64(n)
}

// benchLoad measures reading a dataset folder and loading it into a fresh
// store, including Open and Close.
func benchLoad(b *testing.B, dir string) {
	b.ReportAllocs()
	var last string
	var facts int
	for b.Loop() {
		last = b.TempDir()
		batch, err := store.ReadDataset(dir)
		if err != nil {
			b.Fatal(err)
		}
		db, err := store.Open(last, store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		st, err := db.Load(context.Background(), batch, nil)
		if err != nil {
			b.Fatal(err)
		}
		facts = st.NewFacts
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(diskBytes(b, last), "disk-bytes")
	b.ReportMetric(float64(facts), "facts")
}

func benchSnapshot(b *testing.B, dir string) {
	batch, err := store.ReadDataset(dir)
	if err != nil {
		b.Fatal(err)
	}
	db, err := store.Open(b.TempDir(), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Load(context.Background(), batch, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.Snapshot(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadFB15k237(b *testing.B)     { benchLoad(b, dataset(b, "fb15k-237")) }
func BenchmarkSnapshotFB15k237(b *testing.B) { benchSnapshot(b, dataset(b, "fb15k-237")) }

func familyDir(b *testing.B) string { return filepath.Join(repoRoot(b), "examples", "family") }

func BenchmarkLoadFamily(b *testing.B)     { benchLoad(b, familyDir(b)) }
func BenchmarkSnapshotFamily(b *testing.B) { benchSnapshot(b, familyDir(b)) }

func BenchmarkSnapshotFamilyMem(b *testing.B) {
	batch, err := store.ReadDataset(familyDir(b))
	if err != nil {
		b.Fatal(err)
	}
	m := store.NewMemory()
	if _, err := m.Load(context.Background(), batch, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Snapshot(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadDatasetFB15k237(b *testing.B) {
	dir := dataset(b, "fb15k-237")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := store.ReadDataset(dir); err != nil {
			b.Fatal(err)
		}
	}
}
