package combine

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/noisyor"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/query"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

func TestNoisyOr(t *testing.T) {
	st := testkit.NewStore(t, `
a	p	b
a	p	c
a	p	e
a	q	b
a	q	d
a	r	d
`)
	// r(a, b) has two rules: 0.5 and 0.4; r(a, c) one; r(a, d) is a stored
	// fact that a rule also derives (0.4); r(a, e) a program fact (0.6) that
	// a rule also derives (0.5); s has a single rule.
	prog := testkit.MustParse(t, `
0.5 :: r(X, Y) :- p(X, Y).
0.4 :: r(X, Y) :- q(X, Y).
0.6 :: r(a, e).
0.9 :: s(X, Y) :- p(X, Z), q(X, Y), Z != Y.
`)
	cases := []struct {
		query string
		prog  *datalog.Program
		want  string // values and confidence per line, best first
	}{
		// b: 1 − (1 − 0.5)(1 − 0.4) = 0.7; c: 0.5 alone; d: the stored fact
		// keeps 1 > 0.4; e: the program fact keeps 0.6 > 0.5.
		{"r(a, Y)?", prog, "d 1\nb 0.7\ne 0.6\nc 0.5\n"},
		{"r(X, b)?", prog, "a 0.7\n"},
		{"r(a, b)?", prog, "true 0.7\n"},
		{"r(a, c)?", prog, "true 0.5\n"},
		// s(a, b): bodies Z = c and Z = e, one rule: max 0.9, and the
		// noisy-or of one source is that source. s(a, d): Z = b, c, e: 0.9.
		{"s(a, Y)?", prog, "b 0.9\nd 0.9\n"},
		// No rule for p: the answers as they are.
		{"p(a, Y)?", prog, "b 1\nc 1\ne 1\n"},
		// No program: the store's answers.
		{"r(a, Y)?", nil, "d 1\n"},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			q := testkit.MustQuery(t, c.query)
			answers, err := query.Query(ctx, st, c.prog, q, eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			before := oracle.FormatAnswers(answers)
			got, err := NoisyOr(ctx, st, c.prog, q, answers, eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s := oracle.FormatAnswers(got); s != c.want {
				t.Errorf("NoisyOr(%s) =\n%swant\n%s", c.query, s, c.want)
			}
			if oracle.FormatAnswers(answers) != before {
				t.Errorf("NoisyOr modified its input")
			}
		})
	}
}

// TestNoisyOrOrder checks the sort of rescored answers: an answer that the
// noisy-or lifts above another moves before it, ties by values.
// TestNoisyOrTop: noisy-or over each answer's top best rules only.
func TestNoisyOrTop(t *testing.T) {
	st := testkit.NewStore(t, "a\tp\tb\na\tq\tb\na\to\tb\na\tp\tc\n")
	prog := testkit.MustParse(t, `
0.3 :: r(X, Y) :- o(X, Y).
0.5 :: r(X, Y) :- p(X, Y).
0.4 :: r(X, Y) :- q(X, Y).
`)
	cases := []struct {
		top  int
		want string
	}{
		// b: the two best rules, 1 - 0.5 * 0.6 = 0.7; all three,
		// 1 - 0.5 * 0.6 * 0.7 = 0.79; one, 0.5. c: 0.5 alone.
		{2, "b 0.7\nc 0.5\n"},
		{0, "b 0.79\nc 0.5\n"},
		{1, "b 0.5\nc 0.5\n"},
		{5, "b 0.79\nc 0.5\n"},
	}
	ctx := context.Background()
	q := testkit.MustQuery(t, "r(a, Y)?")
	for _, c := range cases {
		as, err := query.Query(ctx, st, prog, q, eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := NoisyOrTop(ctx, st, prog, q, as, c.top, eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s := oracle.FormatAnswers(got); s != c.want {
			t.Errorf("top %d: got\n%swant\n%s", c.top, s, c.want)
		}
	}
}

func TestNoisyOrOrder(t *testing.T) {
	st := testkit.NewStore(t, "a\tp\tx\na\tq\tx\na\tp\ty\na\tq\tz\n")
	// x: 0.6 and 0.6 → 1 − 0.4·0.4 = 0.84; y: 0.7; z: 0.6.
	prog := testkit.MustParse(t, "0.7 :: r(X, Y) :- p(X, Y), Y != x.\n0.6 :: r(X, Y) :- p(X, Y).\n0.6 :: r(X, Y) :- q(X, Y).\n")
	q := testkit.MustQuery(t, "r(a, Y)?")
	ctx := context.Background()
	answers, err := query.Query(ctx, st, prog, q, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := oracle.FormatAnswers(answers); s != "y 0.7\nx 0.6\nz 0.6\n" {
		t.Fatalf("max answers:\n%s", s)
	}
	got, err := NoisyOr(ctx, st, prog, q, answers, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// y: 1 − 0.3·0.4 = 0.88 (two rules); x: 0.84; z: 0.6.
	if s, want := oracle.FormatAnswers(got), "y 0.88\nx 0.84\nz 0.6\n"; s != want {
		t.Errorf("NoisyOr =\n%swant\n%s", s, want)
	}
}

// noisyOrPerRule is the reference for NoisyOrTop: the rescoring with one
// query per rule of q's predicate (an auxiliary predicate per rule, asked
// of an Engine), as NoisyOrTop did before it asked one query for all of
// them.
func noisyOrPerRule(t *testing.T, st store.Store, prog *datalog.Program, q datalog.Atom, answers []eval.Answer, top int, opt eval.Options) []eval.Answer {
	t.Helper()
	ctx := context.Background()
	ext := &datalog.Program{Facts: prog.Facts, Rules: slices.Clone(prog.Rules)}
	var aux []string
	for i, r := range prog.Rules {
		if r.Head.Pred == q.Pred {
			nr := r
			nr.Head.Pred = fmt.Sprintf("_rule_%d", i)
			ext.Rules = append(ext.Rules, nr)
			aux = append(aux, nr.Head.Pred)
		}
	}
	eng, err := query.Prepare(ctx, st, ext, eval.Options{Min: opt.Min, Threads: opt.Threads})
	if err != nil {
		t.Fatal(err)
	}
	confs := map[string][]float64{}
	for _, name := range aux {
		a := q
		a.Pred = name
		as, err := eng.Query(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range as {
			k := strings.Join(x.Values, "\x00")
			confs[k] = append(confs[k], x.Confidence)
		}
	}
	out := slices.Clone(answers)
	for i := range out {
		if cs, ok := confs[strings.Join(out[i].Values, "\x00")]; ok {
			if top > 0 && len(cs) > top {
				slices.SortFunc(cs, func(a, b float64) int { return cmp.Compare(b, a) })
				cs = cs[:top]
			}
			out[i].Confidence = max(out[i].Confidence, noisyor.Of(cs))
		}
	}
	eval.SortAnswers(out)
	return out
}

// TestNoisyOrTopOneEvaluation checks on programs of the shape of mined
// files (oracle.RandomMinedCase) that NoisyOrTop evaluates the rules once for all
// of the query predicate's rules, and gives exactly the confidences of a
// query per rule (noisyOrPerRule).
func TestNoisyOrTopOneEvaluation(t *testing.T) {
	ctx := context.Background()
	raised := 0 // answers the noisy-or raised above their best derivation
	for seed := range 20 {
		rng := rand.New(rand.NewPCG(uint64(seed), 13))
		base, src := oracle.RandomMinedCase(rng)
		p := testkit.MustParse(t, src)
		st := testkit.NewStore(t, oracle.TripleTSV(base))
		for _, qs := range []string{"h0(X, n1)?", "h1(n2, Y)?", "h0(n0, n3)?", "h1(X, Y)?"} {
			q := testkit.MustQuery(t, qs)
			for _, top := range []int{0, 2} {
				opt := eval.Options{Min: 0.1, Threads: 2}
				answers, err := query.Query(ctx, st, p, q, opt)
				if err != nil {
					t.Fatal(err)
				}
				opt.Work = &eval.WorkCounters{}
				got, err := NoisyOrTop(ctx, st, p, q, answers, top, opt)
				if err != nil {
					t.Fatal(err)
				}
				if n := opt.Work.Evaluations.Load(); n != 1 {
					t.Errorf("seed %d, %s: %d evaluations, want 1", seed, qs, n)
				}
				want := noisyOrPerRule(t, st, p, q, answers, top, opt)
				if !slices.EqualFunc(got, want, func(a, b eval.Answer) bool {
					return slices.Equal(a.Values, b.Values) && a.Confidence == b.Confidence
				}) {
					t.Errorf("seed %d, %s, top %d: got\n%swant\n%sprogram:\n%s", seed, qs, top, oracle.FormatAnswers(got), oracle.FormatAnswers(want), src)
				}
				raised += len(answers) - len(intersectAnswers(answers, got))
			}
		}
	}
	if raised == 0 {
		t.Errorf("no answer was rescored: the cases check nothing")
	}
}

// intersectAnswers returns the answers of a that b has with the same
// values and confidence.
func intersectAnswers(a, b []eval.Answer) []eval.Answer {
	var out []eval.Answer
	for _, x := range a {
		if slices.ContainsFunc(b, func(y eval.Answer) bool { return slices.Equal(x.Values, y.Values) && x.Confidence == y.Confidence }) {
			out = append(out, x)
		}
	}
	return out
}

// TestNoisyOrTopThreshold: the rescoring applies the program's @min like
// the query it rescores: at 0.5 the rule of weight 0.3 is left out, so
// h(a, b) keeps 0.9 (exactly it would be 1 - 0.1 × 0.7 = 0.93).
func TestNoisyOrTopThreshold(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "a\te\tb\n")
	for _, c := range []struct {
		src  string
		want float64
	}{{"@min 0.5.\n", 0.9}, {"", 0.93}} {
		p := testkit.MustParse(t, c.src+"0.3 :: h(X, Y) :- e(X, Y).\n0.9 :: h(X, Y) :- e(X, Y).\n")
		q := testkit.MustQuery(t, "h(a, Y)?")
		as, err := query.Query(ctx, st, p, q, eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := NoisyOrTop(ctx, st, p, q, as, 2, eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || math.Abs(got[0].Confidence-c.want) > 1e-12 {
			t.Errorf("%q: %v, want b at %g", c.src, got, c.want)
		}
	}
}

// TestRescoredOrderFree: noisy-or over an answer's k best rules multiplies
// them highest first however many it has, so a score is the same bit for
// bit whatever the rules' program order (QueryBest compares scores known
// from an answer's strongest rules with the full evaluation's). The
// confidences are chosen so that the product's order shows in the last bits.
func TestRescoredOrderFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var cs []float64
	for range 10000 {
		a, b, c := rng.Float64(), rng.Float64(), rng.Float64()
		if noisyor.Of([]float64{a, b, c}) != noisyor.Of([]float64{c, b, a}) {
			cs = []float64{a, b, c}
			break
		}
	}
	if cs == nil {
		t.Fatal("no three confidences whose product depends on the order")
	}
	ans := []eval.Answer{{Values: []string{"x"}}}
	var got []float64
	for _, order := range [][]float64{cs, {cs[2], cs[1], cs[0]}, {cs[1], cs[2], cs[0]}} {
		for _, top := range []int{3, 5} {
			as := rescoredBy(ans, func([]string) []float64 { return slices.Clone(order) }, top)
			got = append(got, as[0].Confidence)
		}
	}
	for _, c := range got[1:] {
		if c != got[0] {
			t.Fatalf("noisy-or of the same rules in other orders: %v", got)
		}
	}
}
