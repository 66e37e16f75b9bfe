package workpool

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestRunEveryTaskOnce(t *testing.T) {
	for _, workers := range []int{-1, 0, 1, 2, 3, 8, 100} {
		for _, n := range []int{0, 1, 2, 7, 1000} {
			counts := make([]atomic.Int32, n)
			var maxW atomic.Int32
			Run(workers, n, func(w, i int) bool {
				counts[i].Add(1)
				for {
					m := maxW.Load()
					if int32(w) <= m || maxW.CompareAndSwap(m, int32(w)) {
						break
					}
				}
				return true
			})
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("workers=%d n=%d: task %d ran %d times", workers, n, i, c)
				}
			}
			if lim := max(min(workers, n), 1); n > 0 && int(maxW.Load()) >= lim {
				t.Errorf("workers=%d n=%d: worker index %d out of [0, %d)", workers, n, maxW.Load(), lim)
			}
		}
	}
}

func TestRunSerialInOrder(t *testing.T) {
	var got []int
	Run(1, 5, func(w, i int) bool {
		if w != 0 {
			t.Errorf("worker %d in a serial run", w)
		}
		got = append(got, i)
		return true
	})
	for i, v := range got {
		if v != i {
			t.Fatalf("serial order %v", got)
		}
	}
	if len(got) != 5 {
		t.Fatalf("ran %d of 5", len(got))
	}
}

func TestRunStops(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		fewest := 10000
		for range 50 {
			var mu sync.Mutex
			ran := map[int]bool{}
			Run(workers, 10000, func(w, i int) bool {
				mu.Lock()
				ran[i] = true
				mu.Unlock()
				return i != 10
			})
			if !ran[10] {
				t.Fatalf("workers=%d: task 10 did not run", workers)
			}
			if workers == 1 && len(ran) != 11 {
				t.Fatalf("serial: %d tasks ran, want tasks 0 to 10", len(ran))
			}
			fewest = min(fewest, len(ran))
		}
		// In parallel, how many tasks the other goroutines start while task
		// 10's goroutine is between its call and the stop depends on the
		// scheduler (under the race detector, hundreds); but the stop must
		// end the run early.
		if fewest >= 10000 {
			t.Errorf("workers=%d: all 10000 tasks ran in each of 50 runs stopped at task 10", workers)
		}
	}
}

// TestRunPerWorkerScratch checks that no two calls share a worker index at
// the same time (go test -race would also flag a violation).
func TestRunPerWorkerScratch(t *testing.T) {
	const workers = 4
	busy := make([]atomic.Bool, workers)
	Run(workers, 2000, func(w, i int) bool {
		if !busy[w].CompareAndSwap(false, true) {
			t.Errorf("worker %d ran two tasks at once", w)
		}
		s := 0
		for k := range 100 {
			s += k * i
		}
		_ = s
		busy[w].Store(false)
		return true
	})
}

// TestRunGroupsEveryTaskOnce checks that RunGroups runs every task of
// every group once, each group's tasks on one goroutine in their order as
// long as others have groups of their own: a goroutine and a group meet
// at most groups + workers² times (each group's first task, then the
// steals once every group has started, at most workers groups with tasks
// left then).
func TestRunGroupsEveryTaskOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		const groups, size = 100, 10
		var gs [][]int
		group := map[int]int{}
		for g := range groups {
			var ts []int
			for k := range size {
				i := k*groups + g // the group's tasks are not contiguous
				ts = append(ts, i)
				group[i] = g
			}
			gs = append(gs, ts)
		}
		gs = append(gs, nil) // an empty group
		counts := make([]atomic.Int32, groups*size)
		var mu sync.Mutex
		moves := 0
		on := map[int]int{}      // a goroutine's group
		last := map[[2]int]int{} // a goroutine's last task of a group
		RunGroups(workers, gs, nil, func(w, i int) bool {
			counts[i].Add(1)
			mu.Lock()
			defer mu.Unlock()
			k := [2]int{w, group[i]}
			if j, ok := last[k]; ok && j > i {
				t.Errorf("workers=%d: goroutine %d ran task %d after %d of the same group", workers, w, i, j)
			}
			if g, ok := on[w]; !ok || g != group[i] {
				moves++
			}
			on[w], last[k] = group[i], i
			return true
		})
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				t.Fatalf("workers=%d: task %d ran %d times", workers, i, c)
			}
		}
		if bound := groups + workers*(workers+1); moves > bound {
			t.Errorf("workers=%d: the goroutines moved to another group %d times, more than %d", workers, moves, bound)
		}
	}
}

// TestRunGroupsPrefer: a goroutine takes the groups prefer gives it before
// the others. Goroutine 0 waits in its first task until goroutine 1 has run
// as many tasks as its groups hold, or a task of a group not given to it:
// until then, every task goroutine 1 ran is of its own groups.
func TestRunGroupsPrefer(t *testing.T) {
	const groups, size = 40, 5
	var gs [][]int
	prefer := make([]int, groups)
	for g := range groups {
		var ts []int
		for k := range size {
			ts = append(ts, g*size+k)
		}
		gs = append(gs, ts)
		prefer[g] = g % 2
	}
	done := make(chan struct{})
	var once sync.Once
	ran, first := 0, true
	RunGroups(2, gs, prefer, func(w, i int) bool {
		switch {
		case w == 0 && first:
			first = false
			<-done
		case w == 1:
			if prefer[i/size] != 1 && ran < groups/2*size {
				t.Errorf("goroutine 1 ran task %d of a group given to goroutine 0 after %d of its own", i, ran)
			}
			if ran++; ran == groups/2*size || prefer[i/size] != 1 {
				once.Do(func() { close(done) })
			}
		}
		return true
	})
}
