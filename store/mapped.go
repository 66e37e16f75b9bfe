package store

import (
	"sync"
	"time"
)

// releaseInterval is how often a large write hands the pages of the
// store's mapped files back to the kernel (releaseMapped): Badger writes
// tables from its own goroutines (flushes, compactions, also while a
// write stalls on them), so the release follows the clock, not the facts.
const releaseInterval = 100 * time.Millisecond

// KeepMapped stops the large writes of d from handing the pages of the
// store's mapped files back to the kernel (releasing): a process that
// serves reads beside its writes (drumql serve) keeps them, since a
// reader would read each page released back from the disk. Its memory
// cap still counts them (sysmem.Mapped), so a write that would pass it
// stops instead.
func (d *DB) KeepMapped() { d.keepMapped.Store(true) }

// releasing calls releaseMapped on the store's directory every
// releaseInterval until the returned function is called, which releases
// once more and returns when the releases have stopped; nothing after
// KeepMapped.
func (d *DB) releasing() (stop func()) {
	if d.keepMapped.Load() {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(releaseInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				releaseMapped(d.dir)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		releaseMapped(d.dir)
	}
}
