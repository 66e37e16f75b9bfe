package eval

import (
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestSymtabNumberCache checks symtab.number, whose answers for store
// symbols are cached in 2 bits each, against numberValue of the name, on
// the first call (filling the cache) and the second (reading it), for
// names that are numbers and names that are not, next to each other in
// one word of the cache.
func TestSymtabNumberCache(t *testing.T) {
	names := []string{"abc", "1.5", "-2", "007", "x1", "1e3", "2.50", "-", "0", "n", "3", "π", "10", "1.0e-2",
		"b", "c", "d", "42", "e"}
	var tsv strings.Builder
	for _, n := range names {
		tsv.WriteString(n + "\tr\tz\n")
	}
	st := testkit.NewStore(t, tsv.String())
	s, err := NewSymtab(st)
	if err != nil {
		t.Fatal(err)
	}
	numbers := 0
	for pass := range 2 {
		for _, n := range names {
			id, ok := s.Lookup(n)
			if !ok {
				t.Fatalf("%q not in the store", n)
			}
			f, isNum := s.Number(id)
			wf, wNum := NumberValue(n)
			if f != wf || isNum != wNum {
				t.Errorf("pass %d: number(%q) = %v, %v; want %v, %v", pass, n, f, isNum, wf, wNum)
			}
			if pass == 0 && isNum {
				numbers++
			}
		}
	}
	if numbers < 5 || numbers == len(names) {
		t.Errorf("%d of %d names are numbers: the test needs both kinds", numbers, len(names))
	}
}
