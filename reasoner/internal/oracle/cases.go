package oracle

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// RandomCase makes a random graph and a random valid program over it.
func RandomCase(rng *rand.Rand, withNeg bool) ([]store.NamedTriple, *datalog.Program, string) {
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
		tr := store.NamedTriple{S: fmt.Sprint("n", rng.IntN(nodes)), R: "v", O: GraphValues[rng.IntN(len(GraphValues))]}
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

// GraphValues are the values of v in generated graphs: numbers written in
// several ways (7 and 007, 1.5 and 1.50 and 15e-1 are equal as numbers),
// and names that are not numbers.
var GraphValues = []string{"7", "007", "7.0", "10", "1.5", "1.50", "15e-1", "-2", "abc", "n1", "1.5x", "+7"}

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

// TripleTSV writes base as subject<TAB>relation<TAB>object lines.
func TripleTSV(base []store.NamedTriple) string {
	var b strings.Builder
	for _, tr := range base {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", tr.S, tr.R, tr.O)
	}
	return b.String()
}

// RandomQueries returns queries over the relations of RandomCase, with
// constants among the nodes n0 to n<nodes-1> and the values programs use.
func RandomQueries(rng *rand.Rand, nodes int) []string {
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

// RandomMinedCase makes a random graph over the relations h0, h1, ... and
// a program of the shape drumql mine writes over it: every relation is
// the head of weighted chain rules of one or two atoms over the relations
// (itself included, so the program is mutually recursive; `A != B` in
// two-atom bodies) and, for some, of rules with constants in the forms
// mine learns from the graph (`h(X, c) :- b(X, d).`, `h(X, c) :- b(X, _).`,
// and the same with the constant first). The latter demand their body
// relation with no argument bound, which is what makes the magic-set
// rewrite of such programs compute the whole model (see queryUnit).
func RandomMinedCase(rng *rand.Rand) ([]store.NamedTriple, string) {
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
