package eval

import "testing"

// TestAddGroupTasks: the groups of a factorised plan (a pair plan's guard
// groups, a delta's groups by V1 or by V0) are split into tasks of
// consecutive whole groups, by the tuples they hold, so that a few dozen
// heavy groups are not one task on one core while the other waits.
func TestAddGroupTasks(t *testing.T) {
	spans := func(sizes ...int) [][2]int32 {
		var gs [][2]int32
		at := int32(0)
		for _, n := range sizes {
			gs = append(gs, [2]int32{at, at + int32(n)})
			at += int32(n)
		}
		return gs
	}
	even := make([]int, 30)
	for i := range even {
		even[i] = 10
	}
	cases := []struct {
		name   string
		groups [][2]int32
		lo, hi int
		// minTasks is the fewest tasks an even split makes.
		minTasks int
	}{
		{"30 groups of 10", spans(even...), 0, 30, 8},
		{"a batch's middle", spans(even...), 5, 25, 7},
		{"one giant group", spans(3, 1000, 2, 2, 2, 2, 2, 2), 0, 8, 2},
		{"one group", spans(7), 0, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i, threads := range []int{1, 2, 1, 2, 1, 2} {
				e := &Evaluator{threads: threads}
				// A pair plan, a middle delta's groups, an end delta's walk.
				fp := []*facPlan{{gateAt: gatePair}, {}, {walk: true}}[i/2]
				fp.groups = c.groups
				p := &Plan{fac: fp}
				ts := e.addTasks(nil, p, c.lo, c.hi)
				n := int(c.groups[c.hi-1][1] - c.groups[c.lo][0])
				share := (n + 4*threads - 1) / (4 * threads)
				at := c.lo
				for i, tk := range ts {
					if tk.p != p || tk.lo != at || tk.hi <= tk.lo {
						t.Fatalf("threads %d: task %d is %d..%d, want it to start at %d and hold a group", threads, i, tk.lo, tk.hi, at)
					}
					if w := int(c.groups[tk.hi-1][1] - c.groups[tk.lo][0]); w > share && tk.hi-tk.lo > 1 {
						t.Errorf("threads %d: task %d holds %d tuples in %d groups, more than the share %d", threads, i, w, tk.hi-tk.lo, share)
					}
					at = tk.hi
				}
				if at != c.hi {
					t.Fatalf("threads %d: the tasks end at %d, want %d", threads, at, c.hi)
				}
				if threads == 2 && len(ts) < c.minTasks {
					var got [][2]int
					for _, tk := range ts {
						got = append(got, [2]int{tk.lo, tk.hi})
					}
					t.Errorf("%d tasks %v, want at least %d", len(ts), got, c.minTasks)
				}
			}
		})
	}
}
