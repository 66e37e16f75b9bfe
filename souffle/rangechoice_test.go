package souffle

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRangeAnywhere checks range where a functor may stand, not only in
// V = range(...): in a comparison, a fact, a head, the bounds of another
// range, an aggregate's body (where its values are counted), one branch
// of a disjunction under a negation, and inside arithmetic. The expected
// outputs were worked out by hand from Soufflé's reading: the clause
// holds once per value.
func TestRangeAnywhere(t *testing.T) {
	runWant(t, `.decl e(x: number)
e(1). e(4).
.decl a(x: number)
.output a
a(x + 1) :- e(x), x < range(0, 3).
.decl b(x: number)
.output b
b(range(0, 3)).
.decl c(x: number, y: number)
.output c
c(x, range(x, x + 2)) :- e(x).
.decl d(x: number)
.output d
d(range(0, range(2, 4))).
.decl f(x: number, n: number)
.output f
f(x, n) :- e(x), n = count : { e(y), y < range(0, x + 1) }.
.decl g(x: number)
.output g
g(x) :- e(x), !e(range(2, 5)) ; e(x), x = 4.
.decl h(x: number)
.output h
h(2 * range(1, 4) + 1).
.decl _range1(x: number)
_range1(7).
.decl i(x: number, y: number)
.output i
i(x, range(0, 2)) :- _range1(x).
`, nil, map[string]string{
		// e(1): 1 < 2; e(4): no value above 4
		"a.csv": "2\n",
		"b.csv": "0\n1\n2\n",
		"c.csv": "1\t1\n1\t2\n4\t4\n4\t5\n",
		// range(0, 2) and range(0, 3)
		"d.csv": "0\n1\n2\n",
		// x = 1: no y below 0 or 1; x = 4: y = 1 below 2, 3 and 4
		"f.csv": "1\t0\n4\t3\n",
		// range's 2 and 3 are not e's; the second branch: 4
		"g.csv": "1\n4\n",
		"h.csv": "3\n5\n7\n",
		// a relation named as the new variables are
		"i.csv": "7\t0\n7\t1\n",
	})
}

// TestRangeArity checks that a range of the wrong number of bounds is an
// error at the call, wherever it stands.
func TestRangeArity(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": ".decl e(x: number)\ne(x + 1) :- e(x), x < range(5).\n"})
	_, err := runIn(t, dir, Config{})
	if err == nil || !strings.Contains(err.Error(), "prog.dl:2:23: error: range takes two or three numbers (range(A, B[, S])), not 1 arguments") {
		t.Fatalf("range(5): %v", err)
	}
}

// TestChoiceDomainInput checks a choice domain on an input relation:
// of the facts read, in the file's order, one whose key a fact read
// before has is left out (as Soufflé inserts them), and the program's
// facts and rules of the relation do not take a key its input took.
func TestChoiceDomainInput(t *testing.T) {
	runWant(t, `.decl e(x: number, y: number) choice-domain x
.input e
.output e
e(1, 9). e(7, 7).
.decl s(x: number, y: number)
s(1, 2). s(3, 4). s(7, 5). s(8, 0).
e(x, y + 10) :- s(x, y).
.decl pair(x: number, y: number) choice-domain x, y
.input pair
.output pair
`, map[string]string{
		"e.facts":    "1\t3\n1\t2\n2\t1\n3\t1\n",
		"pair.facts": "1\t1\n1\t2\n2\t1\n2\t2\n3\t3\n",
	}, map[string]string{
		// 1 3 first for key 1, then 1 9 and the derived 1 12 refused; the
		// derived 3 14 refused as key 3 is the input's, 7 15 as key 7 is the
		// program fact's; 8 10 added
		"e.csv": "1\t3\n2\t1\n3\t1\n7\t7\n8\t10\n",
		// 1 2 shares x with 1 1, 2 1 shares y with 1 1
		"pair.csv": "1\t1\n2\t2\n3\t3\n",
	})
}

// TestMagicWithOrderedFeatures checks that the magic-transform pragma,
// which changes no result, leaves a program whose result depends on the
// order of evaluation to be evaluated whole: the shortest distances of
// a lattice subsumption over a cycle end and are those without the
// pragma.
func TestMagicWithOrderedFeatures(t *testing.T) {
	prog := `.decl e(x: number, y: number, w: number)
e(1, 2, 1). e(2, 3, 1). e(1, 3, 5). e(3, 1, 1).
.decl d(x: number, y: number, w: number)
d(x, y, w) :- e(x, y, w).
d(x, z, w + v) :- d(x, y, w), e(y, z, v).
d(x, y, a) <= d(x, y, b) :- b <= a.
.decl o(y: number, w: number)
.output o
o(y, w) :- d(1, y, w).
`
	want := "1\t3\n2\t1\n3\t2\n"
	for _, magic := range []string{"", `.pragma "magic-transform" "*"` + "\n"} {
		dir := t.TempDir()
		write(t, dir, map[string]string{"prog.dl": magic + prog})
		out := filepath.Join(dir, "out")
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		// A guard, not a measure: without the lattice the cycle's
		// distances grow for ever.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := Run(ctx, Config{Program: filepath.Join(dir, "prog.dl"), FactDir: dir, OutputDir: out, Jobs: 2}, io.Discard, io.Discard)
		cancel()
		if err != nil {
			t.Fatalf("pragma %q: %v", magic, err)
		}
		if got := readOut(t, filepath.Join(out, "o.csv")); got != want {
			t.Errorf("pragma %q: o.csv = %q, want %q", magic, got, want)
		}
	}
}

// TestOutputDirMissing checks that drumql run refuses an output
// directory that does not exist before it evaluates anything.
func TestOutputDirMissing(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"prog.dl": ".decl e(x: number)\n.output e\ne(1).\n"})
	missing := filepath.Join(dir, "nope")
	c := &Command{Program: filepath.Join(dir, "prog.dl"), FactDir: dir, OutputDir: missing}
	err := c.Run(context.Background(), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "output directory "+missing+" (-D) does not exist") {
		t.Fatalf("-D %s: %v", missing, err)
	}
}
