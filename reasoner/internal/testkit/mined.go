package testkit

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/drumql/drumql/store"
)

// MinedGraph returns a random graph for MinedProgram: entities e0.. (some
// named by numbers: 7, 007 and 7.0 are three symbols equal as numbers),
// relations r0.. and a hub relation in(x, hub0|hub1) that most entities
// have.
func MinedGraph(rng *rand.Rand, ents, rels, facts int) ([]store.NamedTriple, []string) {
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

// MinedProgram writes a program of the shape drumql mine writes, for heads
// r0..r(rels-1): per head, perHead rules of which most have constants
// (`h(X, c) :- b(X, d)`, `h(X, c) :- b(X, _)`, `h(c, X) :- b(d, X)`, with
// symbol and number constants: an unquoted number matches every symbol
// equal to it), chain rules of one to three atoms with the comparisons
// mine writes, rules through the hub relation, rules over a relation with
// no facts (ghost, and gone, which only such rules define), and weights
// below and above 0.1. A threshold directive is added when min > 0.
func MinedProgram(rng *rand.Rand, names []string, rels, perHead int, min float64) string {
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

// ComponentsGraph is a graph of n disjoint communities of size people each,
// over relations r0..r2, and the hub relation in(x, hub) for everyone.
func ComponentsGraph(rng *rand.Rand, n, size int) string {
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

// ComponentsProgram is a mined-shaped program over ComponentsGraph: per
// head, chain rules of one to three atoms, rules with constants (of the
// first community: `h(X, c) :- b(X, _)` demands all of b once c is asked
// for), weak rules through the hub and rules over an absent relation, at
// the threshold 0.1. Rules over all of b have weight 0.11, as mined ones
// over a hub have low ones: nothing chains through the hub they make.
func ComponentsProgram(rng *rand.Rand, perHead int) string {
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
