//go:build linux

package query

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestInferMaxMemoryCountsMappedFiles: Options.MaxMemory counts the
// resident pages of files mapped into the process (the store's tables and
// logs, in peak RSS), not only the Go runtime's memory: with 256 MB of a
// file mapped and touched, an infer under a cap 128 MB above what it held
// without them stops; once they are unmapped it passes.
func TestInferMaxMemoryCountsMappedFiles(t *testing.T) {
	bg := context.Background()
	st := testkit.NewStore(t, chainTSV(100, "e"))
	tc := testkit.MustParse(t, "tc(X, Y) :- e(X, Y).\ntc(X, Z) :- tc(X, Y), e(Y, Z).\n")
	var held int64
	peak := eval.Options{Progress: func(p eval.Progress) { held = max(held, p.Memory) }}
	if _, err := eval.Infer(bg, st, tc, peak); err != nil || held <= 0 {
		t.Fatalf("infer: %v, memory reported %d", err, held)
	}
	const size = 256 << 20
	f, err := os.Create(filepath.Join(t.TempDir(), "mapped"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < size; i += 4096 {
		m[i] = 1
	}
	capped := eval.Options{MaxMemory: held + 128<<20}
	if _, err := eval.Infer(bg, st, tc, capped); !errors.Is(err, eval.ErrMemoryLimit) {
		t.Errorf("with %d MB mapped, infer under a cap of %d MB: %v, want ErrMemoryLimit", size>>20, capped.MaxMemory>>20, err)
	}
	if err := syscall.Munmap(m); err != nil {
		t.Fatal(err)
	}
	if _, err := eval.Infer(bg, st, tc, capped); err != nil {
		t.Errorf("with the mapping gone, infer under the same cap: %v", err)
	}
}
