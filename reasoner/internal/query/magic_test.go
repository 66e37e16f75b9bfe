package query

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/goal"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const ancestorProgram = `ancestor(X, Y) :- parent(X, Y).
ancestor(X, Y) :- parent(X, Z), ancestor(Z, Y).
`

// TestMagicWork checks that the magic-set rewrite makes a query with a
// constant goal-directed: on a chain of 400 nodes, ancestor(v390, X)? has
// 9 answers, and the evaluation may derive facts for the 10 nodes v390
// reaches (their ancestor facts and magic facts, about 10²/2 + 10 + 9), not
// the closure of the chain (about 400²/2). Without the rewrite it derives
// the closure: the bound separates the two.
func TestMagicWork(t *testing.T) {
	ctx := context.Background()
	const n, bound = 400, 200
	st := testkit.NewStore(t, chainTSV(n, "parent"))
	p := testkit.MustParse(t, ancestorProgram)
	q := testkit.MustQuery(t, fmt.Sprintf("ancestor(v%d, X)?", n-10))
	for _, magic := range []bool{true, false} {
		opt := eval.Options{Threads: 1, NoMagic: !magic, NoRace: true, Work: &eval.WorkCounters{}}
		as, err := Query(ctx, st, p, q, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) != 9 {
			t.Fatalf("magic=%v: %d answers, want 9", magic, len(as))
		}
		derived := opt.Work.Derived.Load()
		t.Logf("magic=%v: %d facts derived, %d joins", magic, derived, opt.Work.Joins.Load())
		switch {
		case magic && derived > bound:
			t.Errorf("with magic sets %s derived %d facts, want at most %d", q, derived, bound)
		case !magic && derived <= bound:
			t.Errorf("without magic sets %s derived %d facts, want more than %d (the closure)", q, derived, bound)
		}
	}
}

// TestWeakRulesSpreadNoDemand checks that a rule whose weight is below
// Options.Min is left out of a query's evaluation, as mined files need:
// on the chain of TestMagicWork, plus a hub relation in(v, hub) for every
// node, the rule `0.05 :: ancestor(X, Y) :- in(X, H), in(Z, H),
// ancestor(Z, Y)` would demand ancestor of every node. At Min 0.1 it can
// derive nothing kept (a derivation's confidence is at most its rule's
// weight): the answers are those of the program without it, and the work
// stays that of TestMagicWork. At Min 0.01 it counts: every node with a
// parent is then an answer, through the hub, and the evaluation derives the closure.
func TestWeakRulesSpreadNoDemand(t *testing.T) {
	ctx := context.Background()
	const n, bound = 120, 100
	tsv := chainTSV(n, "parent")
	for i := range n {
		tsv += fmt.Sprintf("v%d\tin\thub\n", i)
	}
	st := testkit.NewStore(t, tsv)
	weak := "0.05 :: ancestor(X, Y) :- in(X, H), in(Z, H), ancestor(Z, Y).\n"
	q := testkit.MustQuery(t, fmt.Sprintf("ancestor(v%d, X)?", n-10))
	want, err := Query(ctx, st, testkit.MustParse(t, ancestorProgram), q, eval.Options{Min: 0.1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		min     float64
		answers int
		closure bool
	}{{0.1, 9, false}, {0.01, n - 1, true}} {
		opt := eval.Options{Min: c.min, Threads: 1, NoRace: true, Work: &eval.WorkCounters{}}
		as, err := Query(ctx, st, testkit.MustParse(t, ancestorProgram+weak), q, opt)
		if err != nil {
			t.Fatal(err)
		}
		derived := opt.Work.Derived.Load()
		t.Logf("min %g: %d answers, %d facts derived", c.min, len(as), derived)
		if len(as) != c.answers {
			t.Fatalf("min %g: %d answers, want %d", c.min, len(as), c.answers)
		}
		if !c.closure {
			if err := oracle.SameAnswers(as, want); err != nil {
				t.Errorf("min %g: answers differ from the program without the weak rule: %v", c.min, err)
			}
		}
		if (derived > bound) != c.closure {
			t.Errorf("min %g: %d facts derived; closure expected: %v (bound %d)", c.min, derived, c.closure, bound)
		}
	}
}

// magicGoldenCases are the rewrites TestMagicGolden prints: a query over
// a recursive predicate and one under negation (magic sets), and one whose
// rewrite demands an all-free goal of a predicate it also demands bound
// (modeShared).
var magicGoldenCases = []struct {
	file, program, query string
}{
	{"magic_related.golden", ancestorProgram + `0.9 :: related(X, Y) :- ancestor(X, Y), not adopted(Y).
0.8 :: related(X, Y) :- ancestor(Y, X).
adopted(Y) :- fostered(Y, _), person(Y).
`, "related(ann, X)?"},
	{"magic_shared.golden", sharedProgram, "r(a, Y)?"},
}

// sharedProgram demands p with its first argument bound (from r) and with
// no argument bound (from the rule of q with a constant): every goal of p
// reads the all-free one, r and q stay goal-directed.
const sharedProgram = `r(X, Y) :- p(X, Y).
r(X, Y) :- q(X, Y).
q(X, Y) :- e(X, Y).
0.5 :: q(c, Y) :- p(Y, _).
p(X, Y) :- e(X, Y).
p(X, Z) :- p(X, Y), e(Y, Z).
`

// TestMagicGolden prints the magic-set rewrite of each of
// magicGoldenCases with the datalog printer and compares it with its
// golden file in testdata (go test -update rewrites them). Internal
// predicates are renamed for reading: magic_P_AD for the magic predicate
// of P with adornment AD (b bound, f free), P_AD for the adorned
// predicate, answer for the answer relation. The comment of each rule says
// where it comes from.
func TestMagicGolden(t *testing.T) {
	rename := func(name string) string {
		if name == goal.AnsPred {
			return "answer"
		}
		parts := strings.Split(name, "\x00")
		if len(parts) == 4 && parts[0] == "" {
			if parts[1] == "m" {
				return "magic_" + parts[2] + "_" + parts[3]
			}
			return parts[2] + "_" + parts[3]
		}
		return name
	}
	for _, c := range magicGoldenCases {
		p := testkit.MustParse(t, c.program)
		q := testkit.MustQuery(t, c.query)
		u, _ := goal.QueryUnit(p, q, true)
		out := &datalog.Program{}
		for i, r := range u.Prog.Rules {
			m := u.Meta[i]
			r.Head.Pred = rename(r.Head.Pred)
			r.Body = append([]datalog.Literal(nil), r.Body...)
			var guards []string
			for j := range r.Body {
				r.Body[j].Atom.Pred = rename(r.Body[j].Atom.Pred)
				if m.Guard != nil && m.Guard[j] {
					guards = append(guards, fmt.Sprint(j+1))
				}
			}
			var c []string
			if m.Src >= 0 {
				c = append(c, fmt.Sprintf("from rule %d", m.Src+1))
			}
			if m.Crisp {
				c = append(c, "crisp")
			}
			if m.Copy {
				c = append(c, "copies its fact")
			}
			if len(guards) > 0 {
				c = append(c, "guards: literal "+strings.Join(guards, ", "))
			}
			r.Comment = strings.Join(c, "; ")
			out.Rules = append(out.Rules, r)
		}
		got := fmt.Sprintf("%% query %s, answers in %s\n%s", q, rename(u.Answer), out)
		file := filepath.Join("testdata", c.file)
		if *update {
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("rewrite of %s differs from %s (go test -update rewrites it):\n%s", q, file, got)
		}
	}
}

// TestQueryMode checks the cost check of queryUnit on small programs: which
// evaluation each query gets, and that every one answers as the full
// evaluation does (magic sets off).
func TestQueryMode(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, `a	e	b
b	e	c
c	e	d
d	e	a
b	e	e
ann	husband	bob
bob	wife	ann
carl	husband	dana
eve	wife	fred
ann	parent	carl
carl	parent	eve
`)
	// mutual is the shape of a mined file: wife and husband defined by
	// each other, and a rule with a constant whose body leaves every
	// argument free (husband(X, bob) :- wife(X, _), as drumql mine
	// writes), so the rewrite demands wife and husband with no argument
	// bound: it would compute both in full.
	const mutual = `0.9 :: wife(A, B) :- husband(B, A).
0.9 :: husband(A, B) :- wife(B, A).
0.5 :: husband(X, bob) :- wife(X, _).
`
	cases := []struct {
		name, program, query string
		want                 eval.QueryMode
	}{
		// No constant anywhere: every goal is all free.
		{"no constant", ancestorProgram, "ancestor(X, Y)?", eval.ModeBottomUp},
		// The rule's constant is the demand of the all-free query.
		{"constant in a body", ancestorProgram + "near(X) :- ancestor(ann, X).\n", "near(X)?", eval.ModeShared},
		{"ground nullary", ancestorProgram + "goal() :- ancestor(ann, eve).\n", "goal()?", eval.ModeMagic},
		{"no rules for the predicate", ancestorProgram, "parent(ann, Y)?", eval.ModePlain},
		{"recursive, bound", ancestorProgram, "ancestor(ann, Y)?", eval.ModeMagic},
		{"recursive, bound second", ancestorProgram, "ancestor(X, eve)?", eval.ModeMagic},
		{"ground", ancestorProgram, "ancestor(ann, eve)?", eval.ModeMagic},
		{"negation", magicGoldenCases[0].program, "related(ann, X)?", eval.ModeMagic},
		{"shared all-free goal", sharedProgram, "r(a, Y)?", eval.ModeShared},
		{"mutual with a constant rule", mutual, "husband(X, bob)?", eval.ModeBottomUp},
		{"mutual, other predicate", mutual, "wife(bob, Y)?", eval.ModeBottomUp},
		{"mutual, ground", mutual, "wife(dana, carl)?", eval.ModeBottomUp},
		// The query's predicate demands itself with no argument bound.
		{"self all-free", ancestorProgram + "0.5 :: ancestor(ann, Y) :- ancestor(Y, _).\n", "ancestor(ann, Y)?", eval.ModeBottomUp},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := testkit.MustParse(t, c.program)
			q := testkit.MustQuery(t, c.query)
			if _, mode := goal.QueryUnit(p, q, true); mode != c.want {
				t.Errorf("%s: mode %d, want %d", c.query, mode, c.want)
			}
			if _, mode := goal.QueryUnit(p, q, false); mode != eval.ModePlain {
				t.Errorf("%s without magic sets: mode %d, want %d (plain)", c.query, mode, eval.ModePlain)
			}
			var got [2]string
			for k, magic := range []bool{true, false} {
				as, err := Query(ctx, st, p, q, eval.Options{Threads: 1, NoMagic: !magic})
				if err != nil {
					t.Fatal(err)
				}
				got[k] = oracle.FormatAnswers(as)
			}
			if got[0] != got[1] {
				t.Errorf("%s: answers differ:\nmagic sets on:\n%smagic sets off:\n%s", c.query, got[0], got[1])
			}
			if got[1] == "" && c.want != eval.ModePlain {
				t.Errorf("%s: no answers; the case checks nothing", c.query)
			}
		})
	}
}

// TestRaceWork bounds the work of a query raced against its bottom-up
// evaluation (raceQuery): ancestor(v1490, X)? on a chain of 1,500 nodes,
// where the magic-set rewrite wins (its 10 answers against a closure of a
// million facts), and the same query on a chain of 100, where the
// bottom-up evaluation finishes within its head start. Either way the
// answers are those of the rewrite alone, and the race does at most
// 1 + raceRatio times the work of the rewrite alone plus the head start,
// and at most 1 + 1/raceRatio times that of the bottom-up evaluation
// alone, each up to what the loser did between two checkpoints (a batch:
// bounded here by 4n).
func TestRaceWork(t *testing.T) {
	ctx := context.Background()
	p := testkit.MustParse(t, ancestorProgram)
	for _, c := range []struct {
		n       int
		magicOK bool // the rewrite must win
	}{{1500, true}, {100, false}} {
		st := testkit.NewStore(t, chainTSV(c.n, "parent"))
		q := testkit.MustQuery(t, fmt.Sprintf("ancestor(v%d, X)?", c.n-10))
		run := func(opt eval.Options) (string, *eval.WorkCounters) {
			opt.Threads = 1
			opt.Work = &eval.WorkCounters{}
			as, err := Query(ctx, st, p, q, opt)
			if err != nil {
				t.Fatal(err)
			}
			return oracle.FormatAnswers(as), opt.Work
		}
		alone, wa := run(eval.Options{NoRace: true})
		bottomUp, wb := run(eval.Options{NoMagic: true})
		raced, wr := run(eval.Options{})
		if raced != alone || bottomUp != alone {
			t.Fatalf("n=%d: answers differ:\nrace\n%s\nrewrite alone\n%s\nbottom-up\n%s", c.n, raced, alone, bottomUp)
		}
		won := wr.Modes[eval.ModeRaceBottomUp].Load() == 0
		if won != c.magicOK {
			t.Fatalf("n=%d: the rewrite won: %v, want %v", c.n, won, c.magicOK)
		}
		ja, jb, jr := wa.Joins.Load(), wb.Joins.Load(), wr.Joins.Load()
		t.Logf("n=%d: rewrite alone %d joins, bottom-up alone %d, race %d", c.n, ja, jb, jr)
		slack := int64(4 * c.n)
		if lim := (1+goal.RaceRatio)*ja + goal.RaceHeadStart + slack; jr > lim {
			t.Errorf("n=%d: race did %d joins, more than %d", c.n, jr, lim)
		}
		if lim := jb + jb/goal.RaceRatio + slack; jr > lim {
			t.Errorf("n=%d: race did %d joins, more than %d", c.n, jr, lim)
		}
	}
}

// TestDemandBoundsDerivations: a fact derived for a demand of magic
// confidence m adds at most m times its confidence to an answer, so the
// rewrite drops derivations below the threshold by that product. Here
// h(a, Y)? demands g(z, _) through a rule of weight 0.3, and g's own rule
// (weight 0.2) can then add at most 0.06 < 0.1: the rewrite must neither
// enumerate g's body (f(z, M), then the fan-out of k from each of the 200
// M) nor store the 200 facts g(z, yi) of confidence 0.2 it gives, which a
// demand bound of 1 would. (Joins count the loaded tuples of k too, so the
// bound is on the facts derived.)
func TestDemandBoundsDerivations(t *testing.T) {
	var tsv strings.Builder
	tsv.WriteString("a\te\tz\nz\tg0\tb\n")
	for m := range 200 {
		fmt.Fprintf(&tsv, "z\tf\tm%d\n", m)
		for y := range 200 {
			fmt.Fprintf(&tsv, "m%d\tk\ty%d\n", m, y)
		}
	}
	p := testkit.MustParse(t, `@min 0.1.
0.3 :: h(X, Y) :- e(X, Z), g(Z, Y).
g(X, Y) :- g0(X, Y).
0.2 :: g(X, Y) :- f(X, M), k(M, Y).
`)
	st := testkit.NewStore(t, tsv.String())
	w := &eval.WorkCounters{}
	as, err := Query(context.Background(), st, p, testkit.MustQuery(t, "h(a, Y)?"), eval.Options{Threads: 1, NoRace: true, Work: w})
	if err != nil {
		t.Fatal(err)
	}
	if got := oracle.FormatAnswers(as); got != "b 0.3\n" {
		t.Fatalf("answers:\n%s", got)
	}
	if d := w.Derived.Load(); d > 20 {
		t.Errorf("the rewrite derived %d facts, want at most 20 (g's weak rule is useless to the query)", d)
	}
}

// TestWidenedGoals: a literal with a bound variable and a constant,
// b(Z, dK) with Z bound, demands b_bf(Z), which the program's chain rule
// demands for the same values anyway, and keeps the tuples with dK; a
// demand per value of Z and constant (b_bb) would hold 200 × 50 magic
// facts. A goal the rewrite does not otherwise demand keeps its constant
// bound: a closure asked path(X, n99) for bound X demands path_bb pointwise
// along the chain, where path_bf would compute every pair.
func TestWidenedGoals(t *testing.T) {
	var tsv strings.Builder
	var src strings.Builder
	src.WriteString("@min 0.1.\nb(X, Y) :- b0(X, Y).\n0.9 :: h(X, Y) :- e(X, Z), b(Z, Y).\n")
	for i := range 200 {
		fmt.Fprintf(&tsv, "a\te\tx%d\nx%d\tb0\td%d\nx%d\tb0\ty%d\n", i, i, i%50, i, i)
	}
	for k := range 50 {
		fmt.Fprintf(&src, "0.5 :: h(X, c%d) :- e(X, Z), b(Z, d%d).\n", k, k)
	}
	for i := range 100 {
		fmt.Fprintf(&tsv, "n%d\tnext\tn%d\n", i, i+1)
	}
	tsv.WriteString("n0\tstart\tyes\n")
	src.WriteString("path(X, Y) :- next(X, Y).\npath(X, Y) :- next(X, Z), path(Z, Y).\ngoal(X) :- start(X, yes), path(X, n99).\n")
	st := testkit.NewStore(t, tsv.String())
	p := testkit.MustParse(t, src.String())
	for _, c := range []struct {
		q   string
		max int64
	}{
		// 1 + 200 magic facts, 400 b facts, 250 + 50 answers
		{"h(a, Y)?", 1500},
		// about 100 magic facts and 100 path facts
		{"goal(X)?", 500},
	} {
		w := &eval.WorkCounters{}
		q := testkit.MustQuery(t, c.q)
		got, err := Query(context.Background(), st, p, q, eval.Options{Threads: 1, NoRace: true, Work: w})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Query(context.Background(), st, p, q, eval.Options{Threads: 1, NoMagic: true})
		if err != nil {
			t.Fatal(err)
		}
		if g, x := oracle.FormatAnswers(got), oracle.FormatAnswers(want); g != x {
			t.Fatalf("%s: the rewrite answers\n%s\nthe bottom-up evaluation\n%s", c.q, g, x)
		}
		if len(got) == 0 {
			t.Fatalf("%s: no answer", c.q)
		}
		if d := w.Derived.Load(); d > c.max {
			t.Errorf("%s: the rewrite derived %d facts, want at most %d", c.q, d, c.max)
		}
	}
}

// TestWeakGuardsSkipped: h(a, Y)? demands g(Z, _) through h's recursive
// rule, for 200 values of Z at confidence 0.3, and g's 300 rules of weight
// 0.2 can add at most 0.06 to an answer, under the threshold. The demands
// are a delta of the recursive stratum (they follow from h's facts): no
// rule of g may try them: trying each would cost 300 × 200 tuples read,
// each cut at once (the bound below is a tenth of it).
func TestWeakGuardsSkipped(t *testing.T) {
	var tsv, src strings.Builder
	src.WriteString("@min 0.1.\nh(X, Y) :- e(X, Y).\n0.3 :: h(X, Y) :- h(X, Z), g(Z, Y).\ng(X, Y) :- g0(X, Y).\n")
	for i := range 200 {
		fmt.Fprintf(&tsv, "a\te\tz%d\nz%d\tg0\ty%d\n", i, i, i)
	}
	for k := range 300 {
		fmt.Fprintf(&src, "0.2 :: g(X, Y) :- f%d(X, Y).\n", k)
		fmt.Fprintf(&tsv, "z%d\tf%d\tw%d\n", k%200, k, k)
	}
	st := testkit.NewStore(t, tsv.String())
	p := testkit.MustParse(t, src.String())
	w := &eval.WorkCounters{}
	as, err := Query(context.Background(), st, p, testkit.MustQuery(t, "h(a, Y)?"), eval.Options{Threads: 1, NoRace: true, Work: w})
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 400 {
		t.Fatalf("%d answers, want 400", len(as))
	}
	if r := w.Reads.Load(); r > 6000 {
		t.Errorf("the rewrite's joins read %d tuples, want at most 6,000", r)
	}
}

// TestSupplementaryWork: under a goal with A bound, the magic rule of the
// chain rule's last atom reads the bindings of its first two, projected
// on D: each of the n places demanded reaches the hub k0 and, from it,
// the n places of k0, and the projection on C joins k0 with in once
// instead of once per place (n² paths). The joins are bounded by a small
// multiple of n.
func TestSupplementaryWork(t *testing.T) {
	const n = 300
	var tsv strings.Builder
	for i := range n {
		fmt.Fprintf(&tsv, "c0\tr\tp%d\np%d\tin\tk0\np%d\tcat0\tcat%d\n", i, i, i, i%3)
	}
	p := testkit.MustParse(t, `q(c0, B) :- r(c0, A), h(A, B).
0.5 :: h(A, B) :- in(A, C), in(D, C), cat(D, B), A != D.
cat(X, Y) :- cat0(X, Y).
`)
	st := testkit.NewStore(t, tsv.String())
	w := &eval.WorkCounters{}
	q := testkit.MustQuery(t, "q(c0, X)?")
	as, err := Query(context.Background(), st, p, q, eval.Options{Threads: 1, NoRace: true, Work: w})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Query(context.Background(), st, p, q, eval.Options{Threads: 1, NoMagic: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := oracle.FormatAnswers(as); got != oracle.FormatAnswers(want) || len(as) != 3 {
		t.Fatalf("answers\n%s\nbottom-up:\n%s", got, oracle.FormatAnswers(want))
	}
	t.Logf("joins %d", w.Joins.Load())
	if j := w.Joins.Load(); j > 40*n {
		t.Errorf("the rewrite did %d joins, want at most %d (the paths through k0 are %d)", j, 40*n, n*n)
	}
}
