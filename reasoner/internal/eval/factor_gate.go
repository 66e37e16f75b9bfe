package eval

// Factorised chain rules under a magic guard over one end of the path
// (see facShape.gate and facPlan.gateAt).

// gateMode is how a factorised plan meets a gate over one end of its path
// (facPlan.gateAt).
type gateMode uint8

const (
	gateNone gateMode = iota
	gateScan
	gateFind
	gateFar
	gatePair
)

// gateDemand sets the worker's demand to the confidence of the tuple of
// fp's gate with value v; false when there is none (v is not demanded).
func (w *Worker) gateDemand(fp *facPlan, v uint32) bool {
	w.reads++
	g := fp.gate.Find([]uint32{v})
	if g < 0 {
		return false
	}
	w.demand = fp.gate.ConfAt(g)
	return true
}

// facGate emits the derivations of the tuples of a whose V0 is the value
// of tuple g of the plan's gate, under its demand; false when the task
// stops.
func (w *Worker) facGate(p *Plan, g int32) bool {
	fp := p.fac
	w.reads++
	w.demand = fp.gate.ConfAt(g)
	if fp.weight*w.demand < w.E.Min {
		w.cut++
		return true
	}
	var ka [2]uint32
	ka[fp.in[0]] = fp.gate.Tuple(g)[0]
	for t := fp.ixG.First(fp.rel[0], ka[:]); t >= 0; t = fp.ixG.After(t) {
		if !w.tick() || !w.facTuple(p, t) {
			return false
		}
	}
	return true
}
