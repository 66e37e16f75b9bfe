package query

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestAggregateOnePassPerGroup bounds the work of an aggregate whose group
// is asked for many times: every edge of a hub asks for the hub's degree,
// which is computed once (one pass over its edges), not once per edge (the
// square of the degree).
func TestAggregateOnePassPerGroup(t *testing.T) {
	const n = 2000
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "hub\te\tn%d\n", i)
	}
	p := testkit.MustParse(t, `deg(X, Y, N) :- e(X, Y), N = count : { e(X, _) }.`)
	for _, threads := range []int{1, 2} {
		st := testkit.NewStore(t, b.String())
		w := &eval.WorkCounters{}
		stats, err := eval.Infer(context.Background(), st, p, eval.Options{Threads: threads, Work: w})
		if err != nil {
			t.Fatal(err)
		}
		if stats.Facts != n {
			t.Fatalf("%d facts, want %d", stats.Facts, n)
		}
		// n outer tuples, n inner ones once per worker that asks first.
		if reads := w.InferReads.Load(); reads > int64(n*(1+threads)) {
			t.Errorf("threads=%d: %d tuples read for %d edges: the hub's count is recomputed per edge", threads, reads, n)
		}
		as, err := Query(context.Background(), st, nil, testkit.MustQuery(t, "deg(hub, n7, N)?"), eval.Options{})
		if err != nil || len(as) != 1 || as[0].Values[0] != fmt.Sprint(n) {
			t.Fatalf("deg(hub, n7, N)? = %v, %v; want %d", as, err, n)
		}
	}
}

// TestEvaluationErrors checks that a rule whose expression cannot be
// evaluated stops the evaluation with an error naming the rule, the
// expression and the values, the same error whatever the number of
// threads, and that Infer then leaves the store as it was.
func TestEvaluationErrors(t *testing.T) {
	const tsv = "a\tv\t3\nb\tv\t0\nc\tv\tx\n"
	for _, c := range []struct{ rule, want string }{
		{"r(X, Y) :- v(X, N), N != x, Y = 6 / N.", "test.dl:1:1: division by zero in 6 / N with N = 0"},
		{"r(X, Y) :- v(X, N), N != x, Y = 6 % N.", "test.dl:1:1: division by zero in 6 % N with N = 0"},
		{"r(X, Y) :- v(X, N), Y = N * 2.", `test.dl:1:1: x is not a number in N * 2 with N = x`},
		{"r(X, Y) :- v(X, N), N != x, Y = 9223372036854775807 + N.", "test.dl:1:1: integer overflow in 9223372036854775807 + N with N = 3"},
		{"r(X, Y) :- v(X, N), N != x, Y = 3 ^ (N * 40).", "test.dl:1:1: integer overflow in 3 ^ (N * 40) with N = 3"},
		{"r(X, Y) :- v(X, N), Y = to_number(cat(N, a)).", `test.dl:1:1: "3a" is not a number in to_number(cat(N, a)) with N = 3`},
		{"r(X, Y) :- v(X, N), N != x, Y = fdiv(1, N - N).", "test.dl:1:1: division by zero in fdiv(1, N - N) with N = 3"},
	} {
		p := testkit.MustParse(t, c.rule)
		for _, threads := range []int{1, 2, 8} {
			st := testkit.NewStore(t, tsv)
			before := oracle.DerivedDump(t, st)
			_, err := eval.Infer(context.Background(), st, p, eval.Options{Threads: threads})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, threads=%d: error %v, want one containing %q", c.rule, threads, err, c.want)
			}
			if after := oracle.DerivedDump(t, st); after != before {
				t.Errorf("%s: the failed infer changed the store", c.rule)
			}
			q := p.Rules[0].Head
			_, err = Query(context.Background(), st, p, q, eval.Options{Threads: threads})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, threads=%d: query error %v, want %q", c.rule, threads, err, c.want)
			}
		}
	}
}

// TestInferComputedValues stores facts whose values an expression
// computed (numbers and names the store did not know), reads them back
// from the store, and explains an aggregate from the program.
func TestInferComputedValues(t *testing.T) {
	const tsv = "ann\tage\t41\nbob\tage\t7\nann\tparent\tbob\nann\tparent\tcid\ncid\tage\t3.5\n"
	p := testkit.MustParse(t, `
older(X, D) :- age(X, A), D = A + 10.
label(X, L) :- age(X, _), L = cat("Dr ", X).
kids(X, N) :- parent(X, _), N = count : { parent(X, _) }.
kid_ages(X, S) :- parent(X, _), S = sum A : { parent(X, K), age(K, A) }.
`)
	st := testkit.NewStore(t, tsv)
	if _, err := eval.Infer(context.Background(), st, p, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`kid_ages(ann, 10.5) 1`,
		`kids(ann, 2) 1`,
		`label(ann, "Dr ann") 1`,
		`label(bob, "Dr bob") 1`,
		`label(cid, "Dr cid") 1`,
		`older(ann, 51) 1`,
		`older(bob, 17) 1`,
		`older(cid, 13.5) 1`,
	}, "\n")
	if got := oracle.DerivedDump(t, st); got != want {
		t.Errorf("stored:\n%s\nwant\n%s", got, want)
	}
	as, err := Query(context.Background(), st, nil, testkit.MustQuery(t, `label(X, "Dr bob")?`), eval.Options{})
	if err != nil || oracle.FormatAnswers(as) != "bob 1\n" {
		t.Errorf("stored label: %v %v", oracle.FormatAnswers(as), err)
	}
	pr, err := Explain(context.Background(), st, p, testkit.MustQuery(t, "kids(ann, 2)"), eval.Options{BaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	got := pr.String()
	if !strings.Contains(got, "count : { parent(ann, _) } = 2  [1]") {
		t.Errorf("the proof does not say what the aggregate counted:\n%s", got)
	}
}
