package maintain

import (
	"maps"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
)

// TestGuardMasks: the indexes rederivePlans asks PrepareIndexes for are,
// for each binary atom after a twin's guard, the one position its guard
// (or a constant) binds when it binds one of the two; none when it binds
// both (a lookup) or neither.
func TestGuardMasks(t *testing.T) {
	tsv := "a\tx\tb\na\ty\tc\nc\tz\tb\nc\tz\ta\n"
	src := `0.9 :: h(A, B) :- x(A, B).
0.8 :: h(A, B) :- y(A, C), z(C, B).
0.7 :: h(A, B) :- y(B, A).
0.6 :: h(A, B) :- z(A, b), y(B, D).
0.5 :: h(A, B) :- y(C, D), x(A, B).
`
	m, s, _ := twinsOfAll(t, tsv, src)
	got := map[int32]uint32{}
	for _, ci := range s.Rules {
		tw, err := m.twinOf(ci)
		if err != nil {
			t.Fatal(err)
		}
		guardMasks(m.e.Rules[tw], got)
	}
	rel := func(name string) int32 { return m.e.RelIdx[eval.RelKey(name, 2)] }
	want := map[int32]uint32{rel("y"): 1, rel("z"): 2}
	if !maps.Equal(got, want) {
		t.Fatalf("masks %v, want %v (y %d, z %d, x %d)", got, want, rel("y"), rel("z"), rel("x"))
	}
}
