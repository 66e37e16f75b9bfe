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

// RunGroups is Run over the tasks of groups, each a list of task indices
// (every index once): f(w, i) is called for every i of every group on
// min(workers, tasks) goroutines. A goroutine takes the tasks of one group
// in their order while any are left, then a group no goroutine has
// started: the first of those prefer gives to it, else the first of those
// it gives to none, else the first (prefer[g] names the goroutine group g
// should run on, -1 for any; prefer may be nil). Once every group has
// started, it takes the next task of the group with the most left. Tasks
// of a group that share state a goroutine keeps (indexed by w) thus run
// one after the other on one goroutine, the one that already holds it
// when it can, as far as the balance of the work allows. Stops as Run
// does; with workers <= 1, or one task, everything runs in the calling
// goroutine, group by group.
func RunGroups(workers int, groups [][]int, prefer []int, f func(w, i int) bool) {
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	nw := min(workers, n)
	if nw <= 1 {
		for _, g := range groups {
			for _, i := range g {
				if !f(0, i) {
					return
				}
			}
		}
		return
	}
	var mu sync.Mutex
	taken := make([]int, len(groups)) // tasks of each group handed out
	started := make([]bool, len(groups))
	fresh := 0 // the groups before it have started
	// first returns the first group not started that prefer gives to
	// w, else to no goroutine, else any; -1 when all have started.
	first := func(w int) int {
		for fresh < len(groups) && (started[fresh] || len(groups[fresh]) == 0) {
			fresh++
		}
		if prefer == nil || fresh == len(groups) {
			if fresh == len(groups) {
				return -1
			}
			return fresh
		}
		none := -1
		for g := fresh; g < len(groups); g++ {
			if started[g] || len(groups[g]) == 0 {
				continue
			}
			if prefer[g] == w {
				return g
			}
			if none < 0 && (prefer[g] < 0 || prefer[g] >= nw) {
				none = g
			}
		}
		if none >= 0 {
			return none
		}
		return fresh
	}
	// take returns the next task for goroutine w on group cur (-1: none)
	// and its group; -1 when every task is handed out.
	take := func(w, cur int) (int, int) {
		mu.Lock()
		defer mu.Unlock()
		if cur < 0 || taken[cur] == len(groups[cur]) {
			if cur = first(w); cur >= 0 {
				started[cur] = true
			} else {
				most := 0
				for g := range groups {
					if left := len(groups[g]) - taken[g]; left > most {
						cur, most = g, left
					}
				}
			}
			if cur < 0 {
				return -1, -1
			}
		}
		i := groups[cur][taken[cur]]
		taken[cur]++
		return i, cur
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range nw {
		wg.Go(func() {
			cur := -1
			for !stop.Load() {
				var i int
				if i, cur = take(w, cur); i < 0 {
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
