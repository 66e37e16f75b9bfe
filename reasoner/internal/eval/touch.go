package eval

// tupleState is a tuple's confidence and provenance before an update.
type tupleState struct {
	Conf    float64
	Prov    int32
	Existed bool
}

// TouchLog records the first state of every tuple an update changes:
// order[i] is the i-th tuple touched (its tkey) and old[i] what it was. A
// set over marks kept from one update to the next: a map of every tuple an
// update touched was a fifth of the cost of adding facts that grow a
// closure by 700,000.
type TouchLog struct {
	TupleSet
	Old []tupleState
}

// NewTouchLog returns an empty touch log whose set keeps its marks in at.
func NewTouchLog(at *Marks) *TouchLog { return &TouchLog{TupleSet: TupleSet{At: at}} }

// Tkey packs a relation and a tuple index.
func Tkey(ri, t int32) uint64 { return uint64(uint32(ri))<<32 | uint64(uint32(t)) }

// Untkey unpacks a Tkey into its relation and tuple index.
func Untkey(k uint64) (int32, int32) { return int32(k >> 32), int32(uint32(k)) }

// OldOf returns what tuple k was before the update: its recorded state, or
// its state now when the update has not touched it.
func (l *TouchLog) OldOf(r *Relation, k uint64) tupleState {
	if i := l.Index(k); i >= 0 {
		return l.Old[i]
	}
	_, t := Untkey(k)
	return tupleState{Conf: r.ConfAt(t), Prov: r.ProvAt(t), Existed: true}
}

// record records tuple t of relation ri in state s, unless it was recorded
// already.
func (l *TouchLog) record(ri, t int32, s tupleState) {
	if l.Add(Tkey(ri, t)) {
		l.Old = append(l.Old, s)
	}
}

// Before records tuple t of r (relation ri) as it is, unless it was
// recorded already.
func (l *TouchLog) Before(r *Relation, ri, t int32) {
	l.record(ri, t, tupleState{Conf: r.ConfAt(t), Prov: r.ProvAt(t), Existed: true})
}

// Added records tuple t of relation ri as new.
func (l *TouchLog) Added(ri, t int32) {
	l.record(ri, t, tupleState{Prov: ProvDeleted})
}
