package goal

import (
	"context"
	"errors"
	"sync"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// raceRatio and raceHeadStart set the shares of a race (see raceQuery):
// the bottom-up evaluation runs while its work is at most raceRatio times
// the goal-directed one's plus raceHeadStart, the goal-directed one
// otherwise. With a ratio of 1, a query with constants costs at most twice
// its bottom-up evaluation, and at most twice its goal-directed evaluation
// plus the head start (about a tenth of a second), whichever is less, up
// to the work between two checkpoints: the competitive ratio of running
// two algorithms in turns when neither's cost is known in advance. With
// the head start, a small program over a small graph is answered
// bottom-up before its magic-set rewrite is even built.
const (
	RaceRatio     = 1
	RaceHeadStart = 1 << 20
)

// errLost stops the evaluation that lost a race.
var errLost = errors.New("reasoner: another evaluation answered first")

// raceGate runs two evaluations of one query in turns, one at a time, and
// lets the first to finish win: evaluation 0 is the goal-directed one, 1
// the bottom-up one. Turns change only at checkpoints (after a relation is
// loaded and after every batch of a round), by the work each has done,
// counted in joins, loaded tuples and rewritten rules (ruleWork): the schedule, and so
// the winner, depend on the program, the query and the data only, never on
// time or on the number of threads.
type raceGate struct {
	mu     sync.Mutex
	cond   *sync.Cond
	turn   int      // the evaluation that runs
	work   [2]int64 // work done so far, per evaluation
	done   [2]bool  // finished, with an answer or an error
	winner int      // the first to finish without error, -1 until then
	start  int64    // the bottom-up evaluation's head start
}

// newRaceGate returns the gate of a race whose bottom-up evaluation has
// the head start raceHeadStart, or none when speculative (a pass of
// QueryBest above the threshold, whose cost adds to the answer's).
func newRaceGate(speculative bool) *raceGate {
	g := &raceGate{winner: -1, turn: 1, start: RaceHeadStart}
	if speculative {
		g.start = 0
	}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// wait blocks evaluation i until it is its turn; false when it lost.
// g.mu is held.
func (g *raceGate) wait(i int) bool {
	for g.turn != i && g.winner < 0 {
		g.cond.Wait()
	}
	return g.winner < 0
}

// next is the evaluation whose turn it is by the shares (g.mu held).
func (g *raceGate) next() int {
	switch {
	case g.done[0]:
		return 1
	case g.done[1]:
		return 0
	case g.work[1] <= RaceRatio*g.work[0]+g.start:
		return 1
	}
	return 0
}

// checkpoint adds work to evaluation i's account, hands the turn over when
// the shares say so, and returns errLost when the other evaluation won
// meanwhile.
func (g *raceGate) checkpoint(i int, work int64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.work[i] += work
	if n := g.next(); n != i {
		g.turn = n
		g.cond.Broadcast()
	}
	if !g.wait(i) {
		return errLost
	}
	return nil
}

// finish records the end of evaluation i.
func (g *raceGate) finish(i int, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.done[i] = true
	if ok && g.winner < 0 {
		g.winner = i
	}
	g.turn = 1 - i
	g.cond.Broadcast()
}

// raceQuery evaluates query q over p in two ways in turns (raceGate): the
// goal-directed unit, which gd builds when that evaluation first runs, and
// the bottom-up unit bu; it returns the evaluator that finished first
// without error, with its unit and mode. The magic-set rewrite is what
// makes a query with constants cheap on a large graph, but on a program
// whose demand reaches most of the graph (a mined file, where every
// relation's hundreds of rules read the others) it costs several times the
// bottom-up evaluation, and building it costs more than evaluating a small
// graph bottom-up; which one is cheaper depends on the data. Racing them
// bounds the query by a small multiple of the cheaper, and both give the
// same answers and confidences. When neither finishes, the goal-directed
// evaluation's error is returned.
func raceQuery(ctx context.Context, st store.Store, syms *eval.Symtab, gd func() *eval.Unit, bu *eval.Unit, opt eval.Options,
	setup func(*eval.Evaluator)) (*eval.Evaluator, *eval.Unit, eval.QueryMode, error) {
	g := newRaceGate(opt.Speculative)
	build := [2]func() *eval.Unit{gd, func() *eval.Unit { return bu }}
	var units [2]*eval.Unit
	var es [2]*eval.Evaluator
	var errs [2]error
	var wg sync.WaitGroup
	for i := range 2 {
		e := eval.NewEvaluator(ctx, st, syms, opt)
		setup(e)
		e.Gate = func(work int64) error { return g.checkpoint(i, work) }
		es[i] = e
		wg.Go(func() {
			units[i], errs[i] = raceRun(e, g, i, build[i])
			g.finish(i, errs[i] == nil)
		})
	}
	wg.Wait()
	if w := opt.Work; w != nil && g.winner >= 0 {
		// The caller counts the winner's work; the loser's counts too.
		l := es[1-g.winner]
		w.Derived.Add(int64(l.Derived))
		w.Joins.Add(l.Work)
		w.Reads.Add(l.Reads)
	}
	modes := [2]eval.QueryMode{eval.ModeMagic, eval.ModeRaceBottomUp}
	if w := g.winner; w >= 0 {
		return es[w], units[w], modes[w], nil
	}
	return es[0], units[0], eval.ModeMagic, errs[0]
}

// ruleWork is the work a rule of a rewrite counts for: building and
// compiling one costs about what fifty joins do (a mined program of 3,426
// rules rewrites into 22,133 in 0.11 s, where the bottom-up evaluation
// does about ten million joins a second).
const ruleWork = 32

// raceRun is evaluation i of race g: it waits for its turn, builds its
// unit (the rules it builds count as work), then loads and runs it.
func raceRun(e *eval.Evaluator, g *raceGate, i int, build func() *eval.Unit) (*eval.Unit, error) {
	g.mu.Lock()
	ok := g.wait(i)
	g.mu.Unlock()
	if !ok {
		return nil, errLost
	}
	u := build()
	e.Unit = u
	e.Work += ruleWork * int64(len(u.Prog.Rules))
	if err := e.Checkpoint(); err != nil {
		return u, err
	}
	if err := e.Load(u); err != nil {
		return u, err
	}
	return u, e.Run(u)
}

// plainUnitOf is the bottom-up unit of query q over p (the relevant rules
// as written, then the answer rule).
func plainUnitOf(p *datalog.Program, q datalog.Atom) *eval.Unit {
	return NewMagicBuilder(p, q).plainQuery()
}
