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
