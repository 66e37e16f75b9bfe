package eval

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/drumql/drumql/internal/pkgerr"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/workpool"
)

// task is a slice of a plan's first step.
type task struct {
	p      *Plan
	lo, hi int
}

// planItems returns the number of first-step tuples of plan p and whether
// its tasks can take slices of them (a plan without steps, or whose first
// step is an index lookup, is one task).
func planItems(p *Plan) (int, bool) {
	if f := p.fac; f != nil {
		switch {
		case f.gateAt == gatePair:
			return len(f.groups), true
		case f.gates != nil:
			return len(f.gates), true
		case f.gateAt == gateScan:
			return f.gate.Len(), true
		}
		if f.groups != nil {
			return len(f.groups), true
		}
		if f.delta != nil {
			return len(f.delta), true
		}
		return f.rel[0].Len(), true
	}
	if len(p.steps) == 0 {
		return 0, false
	}
	s := &p.steps[0]
	switch {
	case s.delta != nil:
		return len(s.delta), true
	case s.lit.Kind == datalog.Positive && s.mask == 0:
		return s.rel.Len(), true
	}
	return 0, false
}

// addTasks splits the first-step tuples lo..hi of plan p into tasks.
func (e *Evaluator) addTasks(ts []task, p *Plan, lo, hi int) []task {
	if f := p.fac; f != nil && f.byGroups() {
		return e.addGroupTasks(ts, p, f.groups, lo, hi)
	}
	chunk := max(512, (hi-lo+4*e.threads-1)/(4*e.threads))
	for ; lo < hi; lo += chunk {
		ts = append(ts, task{p, lo, min(hi, lo+chunk)})
	}
	return ts
}

// addGroupTasks splits the groups lo..hi of factorised plan p (a pair
// plan's guard groups, factor_pair.go; a delta's groups, facGroup and
// facWalk) into tasks of consecutive groups, 4 a thread, by the tuples
// they hold: a task holds at most an even share of them, or one group. A
// group's cost is a walk from its value and a step per tuple, so a few
// dozen groups are already much work: split as other plans are, by 512
// items at least, they were one task, run on one core while the other
// waited at the batch's end. The pinned FB15k-237 file's heaviest rule's
// removal spent 10.4 s of its 36 s so, on pair plans (0.3 s after); its
// full infer, 179 s of 844 s on the groups of deltas (docs/BENCHMARKS.md).
func (e *Evaluator) addGroupTasks(ts []task, p *Plan, groups [][2]int32, lo, hi int) []task {
	n := int(groups[hi-1][1] - groups[lo][0]) // the groups are consecutive spans
	share := (n + 4*e.threads - 1) / (4 * e.threads)
	for lo < hi {
		end, w := lo+1, int(groups[lo][1]-groups[lo][0])
		for end < hi {
			g := int(groups[end][1] - groups[end][0])
			if w+g > share {
				break
			}
			end, w = end+1, w+g
		}
		ts = append(ts, task{p, lo, end})
		lo = end
	}
	return ts
}

// runTasks evaluates the tasks, in parallel when there are several, and
// returns their buffers in task order. The tasks of the factorised plans
// that share a memo (factor_share.go) run one after the other on a worker
// as far as the balance allows; which worker runs a task changes the work
// done, never a buffer.
func (e *Evaluator) runTasks(ts []task) ([]outBuf, error) {
	// The buffers are reused from round to round: a fixpoint of thousands
	// of rounds would otherwise leave its candidates to the collector and
	// grow the heap to twice what it keeps.
	if e.bufs == nil {
		if p, ok := bufPool.Get().(*[]outBuf); ok {
			e.bufs = *p
		}
	}
	if cap(e.bufs) < len(ts) {
		e.bufs = append(e.bufs[:cap(e.bufs)], make([]outBuf, len(ts)-cap(e.bufs))...)
	}
	bufs := e.bufs[:len(ts)]
	for i := range bufs {
		bufs[i].reset()
	}
	// A worker sets stop when the context is cancelled; no task starts
	// after that.
	var stop atomic.Bool
	workers := make([]*Worker, max(1, min(e.threads, len(ts))))
	for i := range workers {
		workers[i] = &Worker{E: e, Stop: &stop, fms: e.facMemosAt(i)}
	}
	// An evaluation error ends its task; the first by task order is
	// returned, so the error does not depend on the number of threads.
	errs := make([]*evalError, len(ts))
	groups, prefer := e.taskGroups(ts)
	start := time.Now()
	workpool.RunGroups(e.threads, groups, prefer, func(wi, i int) bool {
		w := workers[wi]
		w.buf = &bufs[i]
		w.seen.reset()
		t0 := time.Now()
		w.exec(ts[i].p, ts[i].lo, ts[i].hi)
		w.busy += time.Since(t0)
		if w.err != nil {
			errs[i], w.err = w.err, nil
		}
		return !stop.Load()
	})
	e.batchWall += time.Since(start)
	for _, w := range workers {
		e.batchBusy += w.busy
		e.cut += w.cut
		e.Work += int64(w.ticks)
		e.Reads += int64(w.reads)
		e.Probes += w.probes
		e.facBuilds += w.builds
	}
	if err := e.Ctx.Err(); err != nil {
		return nil, pkgerr.Newf("reasoner: %w", err)
	}
	if p := e.memErr.Load(); p != nil {
		return nil, *p
	}
	for _, err := range errs {
		if err != nil {
			return nil, pkgerr.Newf("reasoner: %w", err)
		}
	}
	return bufs, nil
}

// bufPool keeps candidate buffers between evaluations: a goal-directed
// query is an evaluation of its own, and growing fresh buffers for each was
// most of what a query allocated.
var bufPool sync.Pool

// ReleaseBufs gives the evaluator's candidate buffers back to bufPool.
func (e *Evaluator) ReleaseBufs() {
	if e.bufs == nil {
		return
	}
	bufs := e.bufs[:cap(e.bufs)] // runTasks empties them before use
	e.bufs = nil
	bufPool.Put(&bufs)
}
