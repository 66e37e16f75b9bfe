package store

// SetChangeLogCap lowers the change log's cap of s (a *DB or a *Mem), for
// the conformance cases of the cap.
func SetChangeLogCap(s Store, n int) {
	switch s := s.(type) {
	case *DB:
		s.logCap = n
	case *Mem:
		s.logCap = n
	default:
		panic("SetChangeLogCap: not a DB or a Mem")
	}
}

// SetTxnCount lowers the most entries db's UpdateDerived puts in one
// transaction, so that small updates do not fit in one (and go to a
// layer, or a new generation).
func SetTxnCount(db *DB, n int64) { db.txnCount = n }

// LayerEntries is the number of entries of the layer over db's visible
// derived generation (0 when it has none).
func LayerEntries(db *DB) int {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return int(db.layer.n)
}
