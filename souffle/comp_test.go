package souffle

import (
	"path/filepath"
	"testing"
)

// TestRunComponents checks .comp and .init: type parameters, inheritance,
// .override, nested instances and names resolved in the enclosing
// instance.
func TestRunComponents(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": `.comp Pairs<T> {
    .decl pair(a: T, b: T) overridable
    .decl twice(a: T, b: T)
    .output twice
    twice(x, y) :- pair(x, y), pair(y, x).
    pair(x, x) :- seed(x).
}
.comp Sym<T> : Pairs<T> {
    .override pair
    pair(x, y) :- seed(x), seed(y), x != y.
}
.comp Outer {
    .decl local(x: number)
    local(1).
    .comp Inner {
        .decl got(x: number)
        .output got
        got(x) :- local(x).
    }
    .init in = Inner
}
.decl seed(x: number)
seed(1). seed(2).
.init p = Pairs<number>
.init s = Sym<number>
.init o = Outer
`})
	if _, err := runIn(t, dir, Config{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"p.twice.csv":  "1\t1\n2\t2\n",
		"s.twice.csv":  "1\t2\n2\t1\n",
		"o.in.got.csv": "1\n",
	} {
		if got := readOut(t, filepath.Join(dir, "out", name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}
