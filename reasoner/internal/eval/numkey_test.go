package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// numberKeyStore returns a store of n sources with two e edges each (i to
// a_i and b_i), and, when alias is not "", edges from alias (a name equal
// to 0 as a number) to z1 and z2.
func numberKeyStore(t *testing.T, n int, alias string) string {
	t.Helper()
	var tsv strings.Builder
	for i := range n {
		fmt.Fprintf(&tsv, "%d\te\ta%d\n%d\te\tb%d\n", i, i, i, i)
	}
	if alias != "" {
		fmt.Fprintf(&tsv, "%s\te\tz1\n%s\te\tz2\n", alias, alias)
	}
	return tsv.String()
}

// TestNumberConstantLookup: the number constant of r(Y) :- e(0, Y), whose
// symbol is the only one equal to 0, is looked up in e's index on its
// first position: the join reads the two matching tuples, not the
// thousands of e (a scan comparing each source with 0); with a name equal
// to 0 in the store (00, 0.0, -0), which the constant matches too, the
// answers are those of the scan, aliases included.
func TestNumberConstantLookup(t *testing.T) {
	const n = 2000
	for _, alias := range []string{"", "00", "0.0", "-0"} {
		w := &WorkCounters{}
		p := testkit.MustParse(t, `r(Y) :- e(0, Y).`)
		st := testkit.NewStore(t, numberKeyStore(t, n, alias))
		v, err := Evaluate(context.Background(), st, p, Options{Threads: 1, Work: w})
		if err != nil {
			t.Fatal(err)
		}
		got := firstArgs(t, v, "r")
		want := []string{"a0", "b0"}
		if alias != "" {
			want = append(want, "z1", "z2")
		}
		if !slices.Equal(got, want) {
			t.Errorf("alias %q: r = %v, want %v", alias, got, want)
		}
		reads := w.InferReads.Load()
		if alias == "" && reads > 4 {
			t.Errorf("the join read %d tuples of e for the 2 of source 0, want at most 4", reads)
		}
		if alias != "" && reads < 2*n {
			t.Errorf("alias %q: the join read %d tuples, want the scan's %d or more", alias, reads, 2*n)
		}
	}
}

// TestNumberConstantGained: a plan that looks a number constant up by its
// symbol scans the relation instead once a symbol equal to the number
// appears after the plan was made (a local symbol 0.0 in a tuple of e):
// the tuple with 0.0 is matched.
func TestNumberConstantGained(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, numberKeyStore(t, 100, ""))
	syms, err := NewSymtab(st)
	if err != nil {
		t.Fatal(err)
	}
	e := NewEvaluator(ctx, st, syms, Options{Threads: 1})
	u := PlainUnit(testkit.MustParse(t, `r(Y) :- e(0, Y).`))
	if err := e.Load(u); err != nil {
		t.Fatal(err)
	}
	p := e.MakePlan(e.Rules[0], 0, -1, nil)
	if p.steps[0].numKey == 0 {
		t.Fatal("the number constant 0 is not looked up by its symbol")
	}
	alias, err := syms.Id("0.0")
	if err != nil {
		t.Fatal(err)
	}
	y, err := syms.Id("y")
	if err != nil {
		t.Fatal(err)
	}
	p.steps[0].rel.Add([]uint32{alias, y}, 1, ProvBase)
	if err := e.round([]*Plan{p}, map[int32][]int32{}); err != nil {
		t.Fatal(err)
	}
	r := e.Rels[e.Rules[0].Head.Rel]
	var got []string
	for i := range int32(r.Len()) {
		got = append(got, syms.mustName(r.Tuple(i)[0]))
	}
	slices.Sort(got)
	if want := []string{"a0", "b0", "y"}; !slices.Equal(got, want) {
		t.Errorf("r = %v, want %v", got, want)
	}
}

// firstArgs returns the names of the first arguments of v's unary
// relation rel, sorted.
func firstArgs(t *testing.T, v *Evaluation, rel string) []string {
	t.Helper()
	var got []string
	err := v.Each(rel, 1, func(args []uint32, _ float64) bool {
		got = append(got, v.e.Syms.mustName(args[0]))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}
