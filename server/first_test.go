package server

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// firstRules combine p by noisy-or over each answer's two best rules; p
// also has base facts, as a mined file's head relations do.
const firstRules = `@aggregate noisy_or(top = 2).
0.6 :: p(X, Y) :- e0(X, Y).
0.5 :: p(X, Y) :- e1(Y, X).
0.4 :: p(X, Y) :- e0(X, Z), e1(Z, Y).
0.7 :: p(X, Y) :- p(X, Z), e0(Z, Y).
`

// TestNoisyOrFirst: a query with top N combined by the file's noisy-or
// answers the first N answers of the same query without top, in the same
// order with the same confidences, whether its bounds decide them (answers
// that are base facts, at confidence 1) or its rules are applied.
func TestNoisyOrFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	var g strings.Builder
	for range 150 {
		fmt.Fprintf(&g, "n%d e%d n%d\n", rng.IntN(15), rng.IntN(2), rng.IntN(15))
	}
	for range 60 {
		fmt.Fprintf(&g, "n%d p n%d\n", rng.IntN(15), rng.IntN(15))
	}
	e := newEnv(t, g.String(), firstRules, nil)
	ordered := func(q string, top int) []string {
		body, _ := json.Marshal(QueryRequest{Query: q, Top: top})
		var rows []map[string]any
		if err := json.Unmarshal(e.mustDo(http.StatusOK, "POST", "/v1/query", string(body)), &rows); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, fmt.Sprintf("%v %v %v", r["X"], r["Y"], r["confidence"]))
		}
		return out
	}
	raised := 0
	for k := range 15 {
		for _, q := range []string{fmt.Sprintf("p(n%d, Y)?", k), fmt.Sprintf("p(X, n%d)?", k)} {
			all := ordered(q, 0)
			for _, r := range all {
				if !strings.HasSuffix(r, " 1") && !strings.HasSuffix(r, " 0.6") && !strings.HasSuffix(r, " 0.5") {
					raised++ // neither a base fact nor one rule's single derivation
				}
			}
			for _, n := range []int{1, 3, 6, 10} {
				want := all[:min(n, len(all))]
				if got := ordered(q, n); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s top %d:\n%s\nwant the first of all answers:\n%s", q, n, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		}
	}
	if raised < 20 {
		t.Errorf("only %d answers with a combined confidence: the test does not exercise noisy-or", raised)
	}
}
