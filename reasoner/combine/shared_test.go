// Test helpers shared with the evaluator's tests (reasoner/internal/eval),
// copied: a package's test files cannot be imported by another's.

package combine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// From the reasoner's bench_test.go.

// fb15k loads fb15k-237 from $DRUMQL_DATASETS (default ../shared/datasets
// from the repository root), or skips.
func fb15k(b *testing.B) store.Store {
	dir := os.Getenv("DRUMQL_DATASETS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "datasets")
	}
	dir = filepath.Join(dir, "fb15k-237")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("fb15k-237 not found at %s (set DRUMQL_DATASETS): %v", dir, err)
	}
	batch, err := store.ReadDataset(dir)
	if err != nil {
		b.Fatal(err)
	}
	st := store.NewMemory()
	if _, err := st.Load(context.Background(), batch, nil); err != nil {
		b.Fatal(err)
	}
	return st
}

// From the reasoner's helpers_test.go.

// newStore returns a memory store holding the triples of tsv
// (subject<TAB>relation<TAB>object lines).
func newStore(t testing.TB, tsv string) *store.Mem {
	t.Helper()
	st := store.NewMemory()
	loadTSV(t, st, tsv)
	return st
}

// loadTSV loads the triples of tsv (subject<TAB>relation<TAB>object lines)
// into st.
func loadTSV(t testing.TB, st store.Store, tsv string) {
	t.Helper()
	var b store.Batch
	for line := range strings.SplitSeq(tsv, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("bad triple line %q", line)
		}
		b.Graph = append(b.Graph, store.NamedTriple{S: f[0], R: f[1], O: f[2]})
	}
	if _, err := st.Load(context.Background(), &b, nil); err != nil {
		t.Fatal(err)
	}
}

func mustParse(t testing.TB, src string) *datalog.Program {
	t.Helper()
	p, err := parser.ParseString("test.dl", src)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return p
}

func mustQuery(t testing.TB, src string) datalog.Atom {
	t.Helper()
	q, err := parser.ParseQuery(src)
	if err != nil {
		t.Fatalf("parse query %q: %v", src, err)
	}
	return q.Atom
}

// formatAnswers prints answers one a line: values then the confidence.
func formatAnswers(as []eval.Answer) string {
	var b strings.Builder
	for _, a := range as {
		vs := slices.Clone(a.Values)
		if len(vs) == 0 {
			vs = []string{"true"}
		}
		fmt.Fprintf(&b, "%s %.6g\n", strings.Join(vs, " "), a.Confidence)
	}
	return b.String()
}

// From the reasoner's minedgen_test.go.

// minedGraph returns a random graph for minedProgram: entities e0.. (some
// named by numbers: 7, 007 and 7.0 are three symbols equal as numbers),
// relations r0.. and a hub relation in(x, hub0|hub1) that most entities
// have.
func minedGraph(rng *rand.Rand, ents, rels, facts int) ([]store.NamedTriple, []string) {
	names := make([]string, ents)
	numeric := []string{"7", "007", "7.0", "12", "3", "03"}
	for i := range names {
		names[i] = fmt.Sprint("e", i)
		if i < len(numeric) {
			names[i] = numeric[i]
		}
	}
	var base []store.NamedTriple
	seen := map[store.NamedTriple]bool{}
	add := func(tr store.NamedTriple) {
		if !seen[tr] {
			seen[tr] = true
			base = append(base, tr)
		}
	}
	for range facts {
		add(store.NamedTriple{S: names[rng.IntN(ents)], R: fmt.Sprint("r", rng.IntN(rels)), O: names[rng.IntN(ents)]})
	}
	for i := range ents {
		if rng.IntN(3) > 0 {
			add(store.NamedTriple{S: names[i], R: "in", O: fmt.Sprint("hub", rng.IntN(2))})
		}
	}
	return base, names
}

// minedProgram writes a program of the shape drumql mine writes, for heads
// r0..r(rels-1): per head, perHead rules of which most have constants
// (`h(X, c) :- b(X, d)`, `h(X, c) :- b(X, _)`, `h(c, X) :- b(d, X)`, with
// symbol and number constants: an unquoted number matches every symbol
// equal to it), chain rules of one to three atoms with the comparisons
// mine writes, rules through the hub relation, rules over a relation with
// no facts (ghost, and gone, which only such rules define), and weights
// below and above 0.1. A threshold directive is added when min > 0.
func minedProgram(rng *rand.Rand, names []string, rels, perHead int, min float64) string {
	weights := []string{"0.9", "0.75", "0.5", "0.3", "0.15", "0.12", "0.08", "0.02"}
	w := func() string { return weights[rng.IntN(len(weights))] }
	rel := func() string { return fmt.Sprint("r", rng.IntN(rels)) }
	constant := func() string {
		switch rng.IntN(5) {
		case 0:
			return "7" // a number: matches 7, 007 and 7.0
		case 1:
			return `"007"` // a symbol: 007 only
		}
		return names[rng.IntN(len(names))]
	}
	atom := func(b, x, y string) string {
		if rng.IntN(2) == 0 {
			x, y = y, x
		}
		return b + "(" + x + ", " + y + ")"
	}
	var src strings.Builder
	if min > 0 {
		fmt.Fprintf(&src, "@min %g.\n", min)
	}
	for h := range rels {
		head := fmt.Sprint("r", h)
		for range perHead {
			switch k := rng.IntN(20); {
			case k < 11: // a rule with constants
				c, d := constant(), constant()
				switch rng.IntN(4) {
				case 0:
					fmt.Fprintf(&src, "%s :: %s(X, %s) :- %s(X, %s).\n", w(), head, c, rel(), d)
				case 1:
					fmt.Fprintf(&src, "%s :: %s(X, %s) :- %s(X, _).\n", w(), head, c, rel())
				case 2:
					fmt.Fprintf(&src, "%s :: %s(%s, X) :- %s(%s, X).\n", w(), head, c, rel(), d)
				default:
					fmt.Fprintf(&src, "%s :: %s(%s, X) :- %s(X, Y), %s(Y, %s).\n", w(), head, c, rel(), rel(), d)
				}
			case k < 13:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s.\n", w(), head, atom(rel(), "A", "B"))
			case k < 16:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s, %s, A != B.\n", w(), head, atom(rel(), "A", "C"), atom(rel(), "C", "B"))
			case k < 17:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s, %s, %s, A != B, A != D, C != B.\n", w(), head,
					atom(rel(), "A", "C"), atom(rel(), "C", "D"), atom(rel(), "D", "B"))
			case k < 18: // through the hub: weak, as mine finds them
				fmt.Fprintf(&src, "0.05 :: %s(A, B) :- in(A, H), in(B, H), A != B.\n", head)
			case k < 19:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- ghost(A, C), %s(C, B).\n", w(), head, rel())
			default:
				fmt.Fprintf(&src, "%s :: %s(X, %s) :- gone(X, _).\n", w(), head, constant())
			}
		}
	}
	src.WriteString("0.9 :: gone(X, Y) :- ghost(Y, X).\n")
	fmt.Fprintf(&src, "goal() :- r0(%s, %s).\n", constant(), constant())
	fmt.Fprintf(&src, "near(X) :- r1(%s, X).\n", constant())
	return src.String()
}

// From the reasoner's oracle_test.go.

// randomCase makes a random graph and a random valid program over it.
func randomCase(rng *rand.Rand, withNeg bool) ([]store.NamedTriple, *datalog.Program, string) {
	nodes := 3 + rng.IntN(6)
	var base []store.NamedTriple
	seen := map[store.NamedTriple]bool{}
	for range 4 + rng.IntN(14) {
		tr := store.NamedTriple{S: fmt.Sprint("n", rng.IntN(nodes)), R: fmt.Sprint("e", rng.IntN(2)), O: fmt.Sprint("n", rng.IntN(nodes))}
		if !seen[tr] {
			seen[tr] = true
			base = append(base, tr)
		}
	}
	// v gives nodes values: numbers written in several ways and names.
	for range rng.IntN(6) {
		tr := store.NamedTriple{S: fmt.Sprint("n", rng.IntN(nodes)), R: "v", O: graphValues[rng.IntN(len(graphValues))]}
		if !seen[tr] {
			seen[tr] = true
			base = append(base, tr)
		}
	}
	// constant returns a constant for an argument: mostly a node, sometimes
	// a number or a quoted string.
	constant := func() string {
		if rng.IntN(3) == 0 {
			return programValues[rng.IntN(len(programValues))]
		}
		return fmt.Sprint("n", rng.IntN(nodes))
	}
	idb := []string{"p", "q", "r"}
	arity := map[string]int{"e0": 2, "e1": 2, "p": 2, "q": 2, "r": 1, "v": 2}
	weights := []string{"", "0.9 :: ", "0.5 :: ", "0.8 :: "}
	var src strings.Builder
	// a few weighted facts
	for range rng.IntN(3) {
		fmt.Fprintf(&src, "%sp(n%d, %s).\n", weights[rng.IntN(4)], rng.IntN(nodes), constant())
	}
	// Most cases also define s by chain rules alone (a pure chain head, so
	// that Engine.Query takes the chain fast path for s with a constant).
	preds := []string{"e0", "e1", "p", "q", "r", "v"}
	if rng.IntN(3) != 0 {
		arity["s"] = 2
		preds = append(preds, "s")
		for range 1 + rng.IntN(3) {
			fmt.Fprintf(&src, "%s%s.\n", weights[rng.IntN(4)], randomChainRule(rng))
		}
	}
	vars := []string{"X", "Y", "Z", "W"}
	for range 2 + rng.IntN(4) {
		hi := rng.IntN(len(idb))
		head := idb[hi]
		var body []string
		var bodyVars []string
		var valueVars []string // variables bound to values of v
		for range 1 + rng.IntN(3) {
			pr := preds[rng.IntN(len(preds))]
			var args []string
			for k := range arity[pr] {
				if rng.IntN(8) == 0 {
					args = append(args, constant())
					continue
				}
				v := vars[rng.IntN(len(vars))]
				args = append(args, v)
				bodyVars = append(bodyVars, v)
				if pr == "v" && k == 1 {
					valueVars = append(valueVars, v)
				}
			}
			body = append(body, pr+"("+strings.Join(args, ", ")+")")
		}
		if len(bodyVars) == 0 {
			continue
		}
		if withNeg && rng.IntN(3) == 0 && hi > 0 {
			neg := idb[rng.IntN(hi)]
			var args []string
			for range arity[neg] {
				switch rng.IntN(5) {
				case 0, 1:
					args = append(args, "_")
				case 2:
					args = append(args, constant())
				default:
					args = append(args, bodyVars[rng.IntN(len(bodyVars))])
				}
			}
			body = append(body, "not "+neg+"("+strings.Join(args, ", ")+")")
		}
		if rng.IntN(3) == 0 {
			ops := []string{"=", "!=", "<", "<=", ">", ">="}
			left, right := bodyVars[rng.IntN(len(bodyVars))], bodyVars[rng.IntN(len(bodyVars))]
			if rng.IntN(2) == 0 {
				right = programValues[rng.IntN(len(programValues))]
				if len(valueVars) > 0 && rng.IntN(4) != 0 {
					left = valueVars[rng.IntN(len(valueVars))]
				}
			}
			body = append(body, fmt.Sprintf("%s %s %s", left, ops[rng.IntN(len(ops))], right))
		}
		var hargs []string
		for range arity[head] {
			if rng.IntN(10) == 0 {
				hargs = append(hargs, constant())
			} else {
				hargs = append(hargs, bodyVars[rng.IntN(len(bodyVars))])
			}
		}
		fmt.Fprintf(&src, "%s%s(%s) :- %s.\n", weights[rng.IntN(4)], head, strings.Join(hargs, ", "), strings.Join(body, ", "))
	}
	return base, nil, src.String()
}

// graphValues are the values of v in generated graphs: numbers written in
// several ways (7 and 007, 1.5 and 1.50 and 15e-1 are equal as numbers),
// and names that are not numbers.
var graphValues = []string{"7", "007", "7.0", "10", "1.5", "1.50", "15e-1", "-2", "abc", "n1", "1.5x", "+7"}

// programValues are the constants generated programs use besides nodes:
// unquoted numbers (compared by value) and quoted strings (symbols, compared
// by name).
var programValues = []string{"7", "007", "10", "1.5", "1.50", "2", "-2", `"7"`, `"007"`, `"1.50"`, `"abc"`, "abc"}

// randomChainRule returns a chain rule for s: a path of one to three e0/e1
// atoms from X to Y, each in either direction, in a shuffled order,
// sometimes with X != Y, and on paths of three steps sometimes with object
// identity (X != Y, X != Z2, Z1 != Y) or part of it.
func randomChainRule(rng *rand.Rand) string {
	n := 1 + rng.IntN(3)
	vars := []string{"X"}
	for k := 1; k < n; k++ {
		vars = append(vars, fmt.Sprint("Z", k))
	}
	vars = append(vars, "Y")
	var body []string
	for k := range n {
		a, b := vars[k], vars[k+1]
		if rng.IntN(2) == 0 {
			a, b = b, a
		}
		body = append(body, fmt.Sprintf("e%d(%s, %s)", rng.IntN(2), a, b))
	}
	switch k := rng.IntN(6); {
	case k < 2:
		body = append(body, "X != Y")
	case k == 2 && n == 3:
		// Object identity along X -> Z1 -> Z2 -> Y (the fast path's
		// form), the comparisons either way round.
		body = append(body, "Y != X", "X != Z2", "Z1 != Y")
	case k == 3 && n == 3:
		body = append(body, "X != Z2", "Z1 != Y") // not a form of the fast path
	}
	rng.Shuffle(len(body), func(i, j int) { body[i], body[j] = body[j], body[i] })
	return "s(X, Y) :- " + strings.Join(body, ", ")
}

func tripleTSV(base []store.NamedTriple) string {
	var b strings.Builder
	for _, tr := range base {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", tr.S, tr.R, tr.O)
	}
	return b.String()
}

func randomQueries(rng *rand.Rand, nodes int) []string {
	qs := []string{"p(X, Y)?", "q(X, Y)?", "r(X)?", "p(X, X)?"}
	for range 4 {
		n := fmt.Sprint("n", rng.IntN(nodes))
		m := fmt.Sprint("n", rng.IntN(nodes))
		qs = append(qs, "p("+n+", Y)?", "q(X, "+n+")?", "r("+n+")?", "p("+n+", "+m+")?", "q("+n+", _)?",
			"s("+n+", Y)?", "s(X, "+m+")?")
	}
	v := programValues[rng.IntN(len(programValues))]
	w := programValues[rng.IntN(len(programValues))]
	qs = append(qs, "p(X, "+v+")?", "q("+w+", Y)?", "r("+v+")?", "v(X, "+w+")?", "v(n1, "+v+")?")
	return qs
}

// randomMinedCase makes a random graph over the relations h0, h1, ... and
// a program of the shape drumql mine writes over it: every relation is
// the head of weighted chain rules of one or two atoms over the relations
// (itself included, so the program is mutually recursive; `A != B` in
// two-atom bodies) and, for some, of rules with constants in the forms
// mine learns from the graph (`h(X, c) :- b(X, d).`, `h(X, c) :- b(X, _).`,
// and the same with the constant first). The latter demand their body
// relation with no argument bound, which is what makes the magic-set
// rewrite of such programs compute the whole model (see queryUnit).
func randomMinedCase(rng *rand.Rand) ([]store.NamedTriple, string) {
	nodes := 5 + rng.IntN(6)
	rels := 2 + rng.IntN(3)
	node := func() string { return fmt.Sprint("n", rng.IntN(nodes)) }
	rel := func() string { return fmt.Sprint("h", rng.IntN(rels)) }
	var base []store.NamedTriple
	seen := map[store.NamedTriple]bool{}
	for range 8 + rng.IntN(20) {
		tr := store.NamedTriple{S: node(), R: rel(), O: node()}
		if !seen[tr] {
			seen[tr] = true
			base = append(base, tr)
		}
	}
	weights := []string{"0.9", "0.75", "0.5", "0.3", "0.12", "0.05"}
	w := func() string { return weights[rng.IntN(len(weights))] }
	// atom writes b over x and y in either order.
	atom := func(b, x, y string) string {
		if rng.IntN(2) == 0 {
			x, y = y, x
		}
		return b + "(" + x + ", " + y + ")"
	}
	var src strings.Builder
	for h := range rels {
		head := fmt.Sprint("h", h)
		for range 1 + rng.IntN(4) {
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s.\n", w(), head, atom(rel(), "A", "B"))
			} else {
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s, %s, A != B.\n", w(), head, atom(rel(), "A", "C"), atom(rel(), "C", "B"))
			}
		}
		for range rng.IntN(3) {
			body := rel() + "(X, " + node() + ")"
			switch rng.IntN(4) {
			case 1:
				body = rel() + "(" + node() + ", X)"
			case 2:
				body = rel() + "(X, _)"
			case 3:
				body = rel() + "(_, X)"
			}
			if rng.IntN(2) == 0 {
				fmt.Fprintf(&src, "%s :: %s(X, %s) :- %s.\n", w(), head, node(), body)
			} else {
				fmt.Fprintf(&src, "%s :: %s(%s, X) :- %s.\n", w(), head, node(), body)
			}
		}
	}
	return base, src.String()
}

// From the reasoner's workbound_test.go.

// componentsGraph is a graph of n disjoint communities of size people each,
// over relations r0..r2, and the hub relation in(x, hub) for everyone.
func componentsGraph(rng *rand.Rand, n, size int) string {
	var b strings.Builder
	for c := range n {
		for range 3 * size {
			fmt.Fprintf(&b, "c%dp%d\tr%d\tc%dp%d\n", c, rng.IntN(size), rng.IntN(3), c, rng.IntN(size))
		}
		for p := range size {
			fmt.Fprintf(&b, "c%dp%d\tin\thub\n", c, p)
		}
	}
	return b.String()
}

// componentsProgram is a mined-shaped program over componentsGraph: per
// head, chain rules of one to three atoms, rules with constants (of the
// first community: `h(X, c) :- b(X, _)` demands all of b once c is asked
// for), weak rules through the hub and rules over an absent relation, at
// the threshold 0.1. Rules over all of b have weight 0.11, as mined ones
// over a hub have low ones: nothing chains through the hub they make.
func componentsProgram(rng *rand.Rand, perHead int) string {
	weights := []string{"0.9", "0.6", "0.4", "0.2", "0.12", "0.05"}
	w := func() string { return weights[rng.IntN(len(weights))] }
	rel := func() string { return fmt.Sprint("r", rng.IntN(3)) }
	c0 := func() string { return fmt.Sprintf("c0p%d", rng.IntN(8)) }
	var src strings.Builder
	src.WriteString("@min 0.1.\n")
	for h := range 3 {
		head := fmt.Sprint("r", h)
		for range perHead {
			switch rng.IntN(8) {
			case 0:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s(B, A).\n", w(), head, rel())
			case 1, 2:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s(A, C), %s(C, B), A != B.\n", w(), head, rel(), rel())
			case 3:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- %s(A, C), %s(D, C), %s(D, B), A != B, A != D, C != B.\n", w(), head, rel(), rel(), rel())
			case 4:
				// Weak enough that nothing chains through the hub it makes
				// of c0p*: 0.11 times any other rule's weight is below 0.1.
				fmt.Fprintf(&src, "0.11 :: %s(X, %s) :- %s(X, _).\n", head, c0(), rel())
			case 5:
				fmt.Fprintf(&src, "%s :: %s(%s, X) :- %s(%s, X).\n", w(), head, c0(), rel(), c0())
			case 6:
				fmt.Fprintf(&src, "0.05 :: %s(A, B) :- in(A, H), in(B, H), A != B.\n", head)
			default:
				fmt.Fprintf(&src, "%s :: %s(A, B) :- ghost(A, C), %s(C, B).\n", w(), head, rel())
			}
		}
	}
	return src.String()
}
