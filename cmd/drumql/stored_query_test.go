package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestQueryStoredFixpoint: once infer has stored a program's fixpoint,
// query --rules of that program answers from the stored facts (a note says
// so) and rescores noisy-or over them, with the answers an evaluation over
// a store without derived facts gives; after a base fact changes, it
// evaluates again.
func TestQueryStoredFixpoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var g strings.Builder
	for range 60 {
		fmt.Fprintf(&g, "n%d\te%d\tn%d\n", rng.IntN(15), rng.IntN(2), rng.IntN(15))
	}
	dir := t.TempDir()
	rules := writeFile(t, dir, "r.dl", `@min 0.05.
@aggregate noisy_or(top = 2) for p.
0.6 :: p(X, Y) :- e0(X, Y).
0.5 :: p(X, Y) :- e1(Y, X).
0.4 :: p(X, Y) :- e0(X, Z), e1(Z, Y).
0.7 :: p(X, Y) :- q(X, Z), p(Z, Y).
0.5 :: q(X, Y) :- e1(X, Y).
0.3 :: q(X, Y) :- p(Y, X).
`)
	db := loadedDB(t, g.String())
	plain := loadedDB(t, g.String())
	queries := []string{"p(n1, X)?", "p(X, n2)?", "q(n3, X)?", "p(X, Y)?"}
	ask := func(db string, args ...string) (map[string]float64, string) {
		t.Helper()
		out, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q", "query", "--rules", rules, "--format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("query %v: exit %d: %s", args, code, stderr)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		got := map[string]float64{}
		for _, r := range rows {
			var k []string
			for _, v := range []string{"X", "Y"} {
				if s, ok := r[v].(string); ok {
					k = append(k, s)
				}
			}
			got[strings.Join(k, " ")] = r["confidence"].(float64)
		}
		return got, stderr
	}
	same := func(what string, got, want map[string]float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %d answers, want %d", what, len(got), len(want))
		}
		for k, c := range want {
			if math.Abs(got[k]-c) > 1e-6 {
				t.Errorf("%s: %q: %v, want %v", what, k, got[k], c)
			}
		}
	}
	const note = "answered from the derived facts infer stored"
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "infer", rules); code != 0 {
		t.Fatalf("infer: exit %d: %s", code, stderr)
	}
	raised := 0
	for _, q := range queries {
		for _, comb := range []string{"noisy-or", "max"} {
			want, stderr := ask(plain, q, "--combine", comb)
			if strings.Contains(stderr, note) {
				t.Errorf("%s: a store without derived facts: %s", q, stderr)
			}
			got, stderr := ask(db, q, "--combine", comb)
			if !strings.Contains(stderr, note) {
				t.Errorf("%s after infer: no note %q: %s", q, note, stderr)
			}
			same(q+" "+comb, got, want)
			if comb == "noisy-or" {
				max, _ := ask(plain, q, "--combine", "max")
				for k, c := range want {
					if c > max[k]+1e-9 {
						raised++
					}
				}
			}
		}
	}
	if raised < 10 {
		t.Errorf("only %d answers raised by noisy-or", raised)
	}
	// With --top N, combined as the file says (noisy-or over the two best
	// rules for p), the first N answers of the evaluation, in its order.
	ordered := func(db string, args ...string) []string {
		t.Helper()
		out, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q", "query", "--rules", rules, "--format", "tsv"}, args...)...)
		if code != 0 {
			t.Fatalf("query %v: exit %d: %s", args, code, stderr)
		}
		return strings.Split(strings.TrimSpace(out), "\n")
	}
	// sameRows: the same values in the same order, confidences within
	// float32 storage.
	sameRows := func(got, want []string) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			g, w := strings.Split(got[i], "\t"), strings.Split(want[i], "\t")
			if len(g) != len(w) || !slices.Equal(g[:len(g)-1], w[:len(w)-1]) {
				return false
			}
			gc, _ := strconv.ParseFloat(g[len(g)-1], 64)
			wc, _ := strconv.ParseFloat(w[len(w)-1], 64)
			if i > 0 && math.Abs(gc-wc) > 1e-6 {
				return false
			}
		}
		return true
	}
	for _, q := range queries {
		all := ordered(plain, q) // the header, then the answers
		for _, n := range []int{1, 4} {
			if got, want := ordered(db, q, "--top", fmt.Sprint(n)), all[:min(n+1, len(all))]; !sameRows(got, want) {
				t.Errorf("%s --top %d:\n%s\nwant the first of all answers:\n%s", q, n, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
	// A base fact added since the infer: the stored facts are out of date,
	// the query evaluates the rules again.
	extra := writeFile(t, dir, "extra.tsv", "n1\te0\tn14\n")
	for _, d := range []string{db, plain} {
		if _, stderr, code := runCLI(t, "", "--db", d, "-q", "load", extra); code != 0 {
			t.Fatalf("load: exit %d: %s", code, stderr)
		}
	}
	want, _ := ask(plain, "p(n1, X)?")
	got, stderr := ask(db, "p(n1, X)?")
	if strings.Contains(stderr, note) {
		t.Errorf("stale store answered from its derived facts: %s", stderr)
	}
	same("after load", got, want)
	if _, ok := want["n14"]; !ok {
		t.Errorf("the added fact derives nothing: %v", want)
	}
}
