package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/scoring"
	"github.com/drumql/drumql/server"
	"github.com/drumql/drumql/store"
)

// policyRules are the rules of TestOnePolicy's relations t and s, over base
// relations only, so that applying them once to the graph (eval) and their
// fixpoint (query, serve) derive the same facts of t. The second rule
// predicts what the first does (a redundant rule: grouped puts the two in
// one group), the others overlap less.
const policyRules = `0.6 :: t(X, Y) :- a(X, Z), b(Z, Y).
0.45 :: t(X, Y) :- a(X, Z), b(Z, Y), a(X, W).
0.5 :: t(X, Y) :- c(X, Y).
0.4 :: t(X, Y) :- a(X, Z), c(Z, Y).
0.35 :: t(X, Y) :- b(Y, X).
0.3 :: t(X, Y) :- c(Y, X).
0.7 :: s(X, Y) :- a(Y, X).
0.55 :: s(X, Y) :- a(Y, X), a(Y, W).
0.5 :: s(X, Y) :- b(X, Z), c(Z, Y).
0.3 :: s(X, Y) :- c(X, Y).
0.25 :: s(X, Y) :- b(X, Y).
`

// policyDataset writes a seeded random DRUM dataset: base relations a, b
// and c, and t, half of whose triples follow a(X, Z), b(Z, Y), split into
// facts, valid and test; then s, half of whose triples are a's reversed.
func policyDataset(t *testing.T, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 47))
	const n = 24
	e := func(i int) string { return fmt.Sprintf("e%02d", i) }
	var facts, valid, test strings.Builder
	ab := map[[2]int]bool{}
	var as, bs [][2]int
	for range 40 {
		as = append(as, [2]int{rng.IntN(n), rng.IntN(n)})
		bs = append(bs, [2]int{rng.IntN(n), rng.IntN(n)})
	}
	for _, x := range as {
		fmt.Fprintf(&facts, "%s\ta\t%s\n", e(x[0]), e(x[1]))
		for _, y := range bs {
			if y[0] == x[1] {
				ab[[2]int{x[0], y[1]}] = true
			}
		}
	}
	for _, y := range bs {
		fmt.Fprintf(&facts, "%s\tb\t%s\n", e(y[0]), e(y[1]))
	}
	for range 30 {
		fmt.Fprintf(&facts, "%s\tc\t%s\n", e(rng.IntN(n)), e(rng.IntN(n)))
	}
	var ts [][2]int
	for p := range ab {
		ts = append(ts, p)
	}
	slices.SortFunc(ts, func(x, y [2]int) int { return x[0]*n + x[1] - y[0]*n - y[1] })
	for range 30 {
		ts = append(ts, [2]int{rng.IntN(n), rng.IntN(n)})
	}
	ss := [][2]int{}
	for i, x := range as {
		if i%2 == 0 {
			ss = append(ss, [2]int{x[1], x[0]})
		}
	}
	for range 20 {
		ss = append(ss, [2]int{rng.IntN(n), rng.IntN(n)})
	}
	for i, p := range append(ts, ss...) {
		rel := "t"
		if i >= len(ts) {
			rel = "s"
		}
		line := fmt.Sprintf("%s\t%s\t%s\n", e(p[0]), rel, e(p[1]))
		switch i % 4 {
		case 0:
			valid.WriteString(line)
		case 1:
			test.WriteString(line)
		default:
			facts.WriteString(line)
		}
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"facts.txt": facts.String(), "train.txt": "", "valid.txt": valid.String(), "test.txt": test.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// rankedAnswer is one answer of a query as one of the three ranks it.
type rankedAnswer struct {
	name  string
	score float64
}

// TestOnePolicy checks that drumql eval, drumql query and serve rank the
// answers of the same queries identically under each combination a rule
// file's @aggregate directive can record (max, noisy_or(top = k), grouped):
// the same answers (eval's candidates that some rule reaches, less the
// known facts it filters), the same scores (eval's are float32), and the
// same order wherever the scores differ.
func TestOnePolicy(t *testing.T) {
	data := policyDataset(t, 1)
	for _, directive := range []string{"", "@aggregate noisy_or(top = 2).", "@aggregate grouped(threshold = 0.5).", "@aggregate noisy_or(top = 5).\n@aggregate grouped(threshold = 0.9) for t.",
		// per relation, at different thresholds, as eval --combine auto and
		// mine --aggregate auto may choose them
		"@aggregate max(prior = 1).\n@aggregate grouped(threshold = 0.2) for s.\n@aggregate grouped(threshold = 0.8, prior = 1) for t."} {
		t.Run(directive, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "db")
			if _, errOut, code := runCLI(t, "", "-q", "--db", db, "load", data); code != 0 {
				t.Fatalf("load: %s", errOut)
			}
			rules := filepath.Join(t.TempDir(), "t.dl")
			if err := os.WriteFile(rules, []byte(directive+"\n"+policyRules), 0o644); err != nil {
				t.Fatal(err)
			}
			onePolicy(t, db, rules)
		})
	}
}

func onePolicy(t *testing.T, db, rules string) {
	ctx := context.Background()
	st, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := parser.ParseString(rules, string(text))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := linkpred.Queries(st, "test")
	if err != nil {
		t.Fatal(err)
	}
	filter, err := linkpred.NewFilter(st)
	if err != nil {
		t.Fatal(err)
	}
	// eval: the rules applied once, ranked as the directive says
	rs, ents, err := scoring.NewRuleScorer(ctx, st, nil, prog, scoring.AggOverride{}, qs, filter)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]linkpred.Scores, len(qs))
	if err := rs.Score(ctx, qs, out); err != nil {
		t.Fatal(err)
	}
	name := func(id store.ID) string {
		s, err := st.Name(id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// every known triple of t (facts, valid, test): eval filters them out
	// of a query's candidates, but for its answer
	known := map[[3]string]bool{}
	for _, split := range []string{"facts", "valid", "test"} {
		for tr, err := range st.Split(split) {
			if err != nil {
				t.Fatal(err)
			}
			known[[3]string{name(tr.S), name(tr.R), name(tr.O)}] = true
		}
	}
	type named struct{ rel, given, answer string }
	names := make([]named, len(qs))
	rels := map[string]bool{}
	for i, q := range qs {
		names[i] = named{name(q.Rel), name(q.Given), name(q.Answer)}
		rels[names[i].rel] = true
	}
	if len(rels) != 2 {
		t.Fatalf("test queries of %v: want t and s", rels)
	}
	filtered := func(i int, as []rankedAnswer) []rankedAnswer {
		q, rel, given, answer := qs[i], names[i].rel, names[i].given, names[i].answer
		return slices.DeleteFunc(as, func(a rankedAnswer) bool {
			k := [3]string{given, rel, a.name}
			if !q.Inverse {
				k = [3]string{a.name, rel, given}
			}
			return a.name != answer && known[k]
		})
	}
	texts := make([]string, len(qs))
	evals := make([][]rankedAnswer, len(qs))
	for i, q := range qs {
		if q.Inverse {
			texts[i] = fmt.Sprintf("%s(%s, X)?", names[i].rel, names[i].given)
		} else {
			texts[i] = fmt.Sprintf("%s(X, %s)?", names[i].rel, names[i].given)
		}
		for _, c := range out[i].Sparse {
			id := ents[c.Entity]
			if c.Score > 0 {
				evals[i] = append(evals[i], rankedAnswer{name(id), float64(c.Score)})
			}
		}
		// eval ranks; its candidates come in no order
		slices.SortStableFunc(evals[i], func(a, b rankedAnswer) int { return cmp.Compare(b.score, a.score) })
	}
	// serve: the same store and rules, materialised by the server
	srv, err := server.New(ctx, server.Config{Store: st, Program: prog, Files: []string{rules}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	serves := make([][]rankedAnswer, len(qs))
	for i, text := range texts {
		body, _ := json.Marshal(map[string]string{"query": text})
		resp, err := http.Post(hs.URL+"/v1/query", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		err = json.NewDecoder(resp.Body).Decode(&rows)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("serve %s: %d %v", text, resp.StatusCode, err)
		}
		for _, r := range rows {
			serves[i] = append(serves[i], rankedAnswer{r["X"].(string), r["confidence"].(float64)})
		}
	}
	hs.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// query: the command line over the store the server materialised
	for i, text := range texts {
		stdout, stderr, code := runCLI(t, "", "-q", "--db", db, "query", "--rules", rules, text, "--format", "tsv")
		if code != 0 {
			t.Fatalf("query %s: %s", text, stderr)
		}
		var cli []rankedAnswer
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n")[1:] {
			f := strings.Split(line, "\t")
			c, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			cli = append(cli, rankedAnswer{f[0], c})
		}
		cli = filtered(i, cli)
		sameRanking(t, text+" (eval, query)", filtered(i, evals[i]), cli)
		sameRanking(t, text+" (query, serve)", cli, filtered(i, serves[i]))
	}
}

// sameRanking fails unless a and b hold the same answers with the same
// scores (to float32's precision: eval's are float32) and order them
// alike where their scores differ; each is sorted best first, but answers of
// one score may come in any order.
func sameRanking(t *testing.T, what string, a, b []rankedAnswer) {
	t.Helper()
	score := func(as []rankedAnswer) map[string]float64 {
		m := map[string]float64{}
		for _, x := range as {
			m[x.name] = x.score
		}
		return m
	}
	sa, sb := score(a), score(b)
	if len(sa) != len(sb) {
		t.Errorf("%s: %d answers against %d:\n%v\n%v", what, len(a), len(b), a, b)
		return
	}
	for n, x := range sa {
		y, ok := sb[n]
		if !ok || math.Abs(x-y) > 1e-6 {
			t.Errorf("%s: %s scores %g against %g (present: %v)", what, n, x, y, ok)
		}
	}
	for _, as := range [][]rankedAnswer{a, b} {
		for i := 1; i < len(as); i++ {
			if as[i].score > as[i-1].score+1e-6 {
				t.Errorf("%s: %s (%g) after %s (%g): not best first", what, as[i].name, as[i].score, as[i-1].name, as[i-1].score)
			}
		}
	}
}
