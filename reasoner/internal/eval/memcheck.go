package eval

import (
	"fmt"
	"runtime/metrics"

	"github.com/drumql/drumql/internal/sysmem"
)

// memCheckEvery is how many candidate facts apply merges between two
// checks of the memory cap (checkMemoryAhead).
const memCheckEvery = 1 << 16

// growthWithin is what adding n more tuples to the relations could
// allocate at once: the new slots of every hash index that n inserts take
// past its load limit, and the new chain arrays of those whose chains run
// out of room. An index of millions of tuples doubles by hundreds of MB in
// one allocation, which a check of the memory in use alone sees only once
// it is made (a 14M-fact closure under a 700 MB cap peaked at 780 MB).
func (e *Evaluator) growthWithin(n int) int64 {
	var g int64
	for _, r := range e.Rels {
		if r.Shared {
			continue
		}
		g += r.Unique.growthWithin(n)
		for _, ix := range r.Idx {
			g += ix.growthWithin(n)
		}
	}
	return g
}

// growthWithin is what n more inserts into ix could allocate at once (see
// insert and Grow).
func (ix *hashIndex) growthWithin(n int) int64 {
	var g int64
	if ix.seg != nil {
		// n inserts split at most one segment per 3/8 of a segment's
		// slots, and may double the directory.
		return 8*int64(segLen)*int64(n/(3*segLen/8)+1) + 16*int64(len(ix.seg.dir))
	}
	if c := ix.count + n; 2*c > len(ix.Slots) && (!ix.full || 4*c > 3*len(ix.Slots)) {
		g += 8 * 2 * int64(len(ix.Slots)) // Grow doubles the slots
	}
	if !ix.unique && len(ix.Next)+n > cap(ix.Next) {
		g += 4 * int64(2*cap(ix.Next)+n) // append grows Next by at most twice
	}
	return g
}

// memoryInUse is the memory the process holds: what the Go runtime has
// mapped minus what it has returned to the operating system (the measure
// of runtime/debug.SetMemoryLimit), plus the resident pages of mapped
// files (the store's tables and logs: sysmem.Mapped), which peak RSS
// counts and the Go runtime does not.
func memoryInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	mapped, _ := sysmem.Mapped()
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return mapped
	}
	return int64(s[0].Value.Uint64()-s[1].Value.Uint64()) + mapped
}

// checkMemory returns an ErrMemoryLimit error, recorded for the other
// workers, when the memory in use exceeds the cap. Safe for concurrent use.
func (e *Evaluator) checkMemory() error { return e.checkMemoryAhead(0) }

// checkMemoryAhead is checkMemory counting, beside the memory in use, what
// adding n more tuples could allocate at once (growthWithin; n > 0 only
// where no tuple is added concurrently).
func (e *Evaluator) checkMemoryAhead(n int) error {
	if e.MaxMem <= 0 {
		return nil
	}
	if p := e.memErr.Load(); p != nil {
		return *p
	}
	m := memoryInUse()
	if n > 0 {
		m += e.growthWithin(n)
	}
	if m <= e.MaxMem {
		return nil
	}
	var err error = &MemoryLimitError{InUse: m, Cap: e.MaxMem, Rounds: e.Iterations, Facts: e.Derived}
	e.memErr.CompareAndSwap(nil, &err)
	return *e.memErr.Load()
}

// formatBytes writes n bytes in MB (GB from 10 GB on).
func formatBytes(n int64) string {
	if n >= 10<<30 {
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MB", (n+(1<<19))>>20)
}
