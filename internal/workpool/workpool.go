// Package workpool runs indexed tasks on a bounded number of goroutines.
//
// It is a leaf: it imports only the standard library, and every package of
// the module may import it (docs/ARCHITECTURE.md, "The dependency rule"). The reasoner's parallel
// rounds, the miner's propagation and linkpred's evaluation all hand their
// tasks out through Run.
package workpool

import (
	"sync"
	"sync/atomic"
)

// Run calls f(w, i) for every i in [0, n) on min(workers, n) goroutines and
// returns when every call that started has returned. Tasks are handed out in
// increasing order of i, each to the first goroutine that is free; w, in
// [0, min(workers, n)), names the goroutine running the call, so f can keep
// per-worker scratch space indexed by w without locking. When f returns
// false the goroutines start no further task once they see the stop (tasks
// already running finish; the others may start tasks in the meantime, as
// many as the scheduler lets them before the stop is stored). With
// workers <= 1, or n <= 1, everything runs in the calling goroutine, in
// order, with w = 0.
func Run(workers, n int, f func(w, i int) bool) {
	nw := min(workers, n)
	if nw <= 1 {
		for i := range n {
			if !f(0, i) {
				return
			}
		}
		return
	}
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range nw {
		wg.Go(func() {
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if !f(w, i) {
					stop.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
}
