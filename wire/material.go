package wire

import (
	"crypto/sha256"
	"fmt"

	"github.com/drumql/drumql/store"
)

// MaterialLine says which materialisation a store's derived facts are
// (`drumql verify`): how many there are (derived), the digest and size of
// the program record an infer stored with them (the same after an
// interrupted update as before it, or the new one), and how many base
// facts changed since; or that there is no record.
func MaterialLine(derived int, ms store.MaterialState) string {
	if ms.Program == nil {
		return fmt.Sprintf("derived facts: %d, without a record of their program (the next infer recomputes them)", derived)
	}
	sum := sha256.Sum256(ms.Program)
	changed := fmt.Sprintf("%d base facts changed since", len(ms.Changes))
	if ms.Overflow {
		changed = fmt.Sprintf("more than %d base facts changed since", store.MaxChangeLog)
	}
	return fmt.Sprintf("derived facts: %d, of the program recorded as sha256:%x (%d bytes); %s", derived, sum[:8], len(ms.Program), changed)
}

// StaleNote is the note that a store's derived facts are out of date:
// base facts were loaded or retracted since the infer that stored them
// (ms, what the store says of its materialisation); "" when they are not,
// or when no infer recorded its program.
func StaleNote(ms store.MaterialState) string { return StalenessNote(store.StalenessOfState(ms)) }

// StalenessNote is StaleNote of what store.StalenessOf returned.
func StalenessNote(s store.Staleness) string {
	switch {
	case !s.Record:
		return ""
	case s.Overflow:
		return fmt.Sprintf("note: the derived facts are out of date: more than %d base facts changed since they were inferred; drumql infer updates them", store.MaxChangeLog)
	case s.Changes == 1:
		return "note: the derived facts are out of date: 1 base fact changed since they were inferred; drumql infer updates them"
	case s.Changes > 0:
		return fmt.Sprintf("note: the derived facts are out of date: %d base facts changed since they were inferred; drumql infer updates them", s.Changes)
	}
	return ""
}
