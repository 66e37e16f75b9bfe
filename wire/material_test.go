package wire

import (
	"fmt"
	"testing"

	"github.com/drumql/drumql/store"
)

func TestMaterialLine(t *testing.T) {
	rec := []byte("record")
	for _, c := range []struct {
		ms          store.MaterialState
		line, stale string
	}{
		{store.MaterialState{}, "derived facts: 7, without a record of their program (the next infer recomputes them)", ""},
		{store.MaterialState{Program: rec}, "derived facts: 7, of the program recorded as sha256:70ce871f8a3d3fb4 (6 bytes); 0 base facts changed since", ""},
		{store.MaterialState{Program: rec, Changes: make([]store.BaseChange, 1)},
			"derived facts: 7, of the program recorded as sha256:70ce871f8a3d3fb4 (6 bytes); 1 base facts changed since",
			"note: the derived facts are out of date: 1 base fact changed since they were inferred; drumql infer updates them"},
		{store.MaterialState{Program: rec, Changes: make([]store.BaseChange, 2)},
			"derived facts: 7, of the program recorded as sha256:70ce871f8a3d3fb4 (6 bytes); 2 base facts changed since",
			"note: the derived facts are out of date: 2 base facts changed since they were inferred; drumql infer updates them"},
		{store.MaterialState{Program: rec, Overflow: true},
			fmt.Sprintf("derived facts: 7, of the program recorded as sha256:70ce871f8a3d3fb4 (6 bytes); more than %d base facts changed since", store.MaxChangeLog),
			fmt.Sprintf("note: the derived facts are out of date: more than %d base facts changed since they were inferred; drumql infer updates them", store.MaxChangeLog)},
	} {
		if got := MaterialLine(7, c.ms); got != c.line {
			t.Errorf("MaterialLine(%+v):\n %q\nwant %q", c.ms, got, c.line)
		}
		if got := StaleNote(c.ms); got != c.stale {
			t.Errorf("StaleNote(%+v):\n %q\nwant %q", c.ms, got, c.stale)
		}
	}
}
