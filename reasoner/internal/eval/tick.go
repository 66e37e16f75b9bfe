package eval

// tick counts a step of the join and reports whether the task goes on: it
// stops on an evaluation error, when another worker stopped (checked
// every tickStop steps), and (checked every 65,536 steps) when the
// evaluation is cancelled or over its memory. It is a step's first cost
// in the factorised plans' walks and in Join, so its common path is small
// enough to inline.
func (w *Worker) tick() bool {
	w.ticks++
	if w.ticks&tickStop != 0 && w.err == nil {
		return true
	}
	return w.tickCheck()
}

// tickStop is one less than the steps between two of tick's checks of
// Stop: a worker goes on for at most that many steps after another one
// stopped (microseconds).
const tickStop = 1<<10 - 1

// tickCheck is tick's check of the evaluation error, Stop, the context
// and the memory.
func (w *Worker) tickCheck() bool {
	if w.Stop.Load() || w.err != nil {
		return false
	}
	if w.ticks&0xffff == 0 && (w.E.Ctx.Err() != nil || w.E.checkMemory() != nil) {
		w.Stop.Store(true)
		return false
	}
	return true
}
