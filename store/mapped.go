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

// releasing calls releaseMapped on the store's directory every
// releaseInterval until the returned function is called, which releases
// once more and returns when the releases have stopped.
func (d *DB) releasing() (stop func()) {
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
