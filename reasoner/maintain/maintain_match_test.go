package maintain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// TestSameRule checks sameRule against ruleKey equality on every pair of a
// set of rules that differ in one part at a time: variables, symbols and
// numbers with the same text, negation, predicates, argument order, body
// length and order, expressions and comparisons (which take the printed
// path), and weights, comments and positions (which must not count).
func TestSameRule(t *testing.T) {
	src := `
p(X, Y) :- q(X, Y).
0.5 :: p(X, Y) :- q(X, Y).
p(X, Y) :- q(Y, X).
p(X, Z) :- q(X, Z).
p(X, Y) :- r(X, Y).
p(X, Y) :- q(X, Y), r(Y, X).
p(X, Y) :- r(Y, X), q(X, Y).
p(X, Y) :- q(X, Y), not r(Y, X).
p(X, Y) :- q(X, Y), r(Y, X), X != Y.
p(X, Y) :- q(X, Y), r(Y, X), X = Y.
p(X, Y) :- q(X, Y), r(Y, X), Y = X.
p(X, Y) :- q(X, Y), r(Y, X), X < Y.
p(X, Y) :- q(X, Y), r(Y, X), X < 1.
p(X, Y) :- q(X, Y), r(Y, X), X < "1".
p(X, a) :- q(X, a).
p(X, "a") :- q(X, "a").
p(X, 1) :- q(X, 1).
p(X, "1") :- q(X, "1").
p(X, "X") :- q(X, "X").
p(X, _) :- q(X, _).
p(X, Y) :- q(X, Y), Y = X + 1.
p(X, Y) :- q(X, Y), Y = X + 2.
"p q"(X, Y) :- q(X, Y).
p(X, Y) :- "contains"(X, Y).
p(X, Y) :- q(X, Y), contains(X, Y).
`
	p := testkit.MustParse(t, src)
	// The same rules again, moved and commented: positions and comments
	// must not count.
	q := testkit.MustParse(t, "\n\n\n% moved\n"+strings.ReplaceAll(src, ":-", " :-  "))
	rules := append(append([]datalog.Rule{}, p.Rules...), q.Rules...)
	for i := range q.Rules {
		rules[len(p.Rules)+i].Comment = "a comment"
	}
	equal := 0
	for i := range rules {
		for j := range rules {
			want := ruleKey(&rules[i]) == ruleKey(&rules[j])
			if got := sameRule(&rules[i], &rules[j]); got != want {
				t.Errorf("sameRule(%s, %s) = %v, want %v", rules[i].String(), rules[j].String(), got, want)
			}
			if want && i != j {
				equal++
			}
		}
	}
	// Each rule equals its moved copy. Two pairs are the same rule: the
	// first two differ only in weight, and a and "a" are one symbol; each
	// pair and its copies make a group of four (12 ordered pairs).
	if want := 2*(len(p.Rules)-4) + 2*12; equal != want {
		t.Errorf("%d ordered pairs of distinct rules are the same, want %d", equal, want)
	}
}

// TestMatchRules checks matchRules on random edits of a program with
// repeated rules (removals, insertions, weight changes, moves, swaps):
// every new rule is matched with a compiled rule of the same key or with
// none, no compiled rule twice, and as many rules are matched as a
// multiset of keys allows (what matching every rule by its key gave).
func TestMatchRules(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	rng := rand.New(rand.NewPCG(3, 5))
	ruleText := func() string {
		return fmt.Sprintf("%.2g :: p(X, Y) :- q%d(X, Y).", 0.1+0.1*float64(rng.IntN(9)), rng.IntN(12))
	}
	for trial := range 300 {
		var lines []string
		for range 2 + rng.IntN(20) {
			lines = append(lines, ruleText())
		}
		m, _, err := Materialise(ctx, st, testkit.MustParse(t, strings.Join(lines, "\n")), eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		next := append([]string{}, lines...)
		for range 1 + rng.IntN(3) {
			switch i := rng.IntN(len(next)); rng.IntN(5) {
			case 0:
				next = append(next[:i:i], next[i+1:]...)
			case 1:
				next = append(next[:i:i], append([]string{ruleText()}, next[i:]...)...)
			case 2:
				parts := strings.SplitN(next[i], " :: ", 2)
				next[i] = "0.95 :: " + parts[1]
			case 3:
				j := rng.IntN(len(next))
				next[i], next[j] = next[j], next[i]
			default:
				next = append(next, next[i])
			}
			if len(next) == 0 {
				next = []string{ruleText()}
			}
		}
		np := testkit.MustParse(t, strings.Join(next, "\n"))
		match, same := m.matchRules(np)
		used := map[int]bool{}
		got := 0
		for i, ci := range match {
			if ci < 0 {
				continue
			}
			got++
			if used[ci] {
				t.Fatalf("trial %d: compiled rule %d matched twice", trial, ci)
			}
			used[ci] = true
			if ruleKey(&np.Rules[i]) != ruleKey(&m.u.Prog.Rules[ci]) {
				t.Fatalf("trial %d: rule %d (%s) matched with %s", trial, i, np.Rules[i].String(), m.u.Prog.Rules[ci].String())
			}
		}
		// As many as the keys allow.
		count := map[string]int{}
		for _, ci := range m.ruleOf {
			count[ruleKey(&m.u.Prog.Rules[ci])]++
		}
		want := 0
		for i := range np.Rules {
			if k := ruleKey(&np.Rules[i]); count[k] > 0 {
				count[k]--
				want++
			}
		}
		if got != same || same != want {
			t.Fatalf("trial %d: %d rules matched, same %d, want %d\nold %q\nnew %q", trial, got, same, want, lines, next)
		}
	}
}

// TestRecordAfterApply checks that after each update to a program made
// without Delta.Record, the materialisation's Record is RecordOf(the new
// program, the materialisation's options): after a reweighted rule and
// after a raised threshold (both incremental), and after a lowered
// threshold, twice (recomputations, the second also leaving out every rule
// of p). This is what a caller that sets Delta.Record to its own RecordOf
// relies on; the test does not set Delta.Record, so it does not check that
// Apply takes it.
func TestRecordAfterApply(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "a\te\tb\nb\te\tc\nc\te\td\n")
	opt := eval.Options{}
	m, _, err := Materialise(ctx, st, testkit.MustParse(t, "p(X, Y) :- e(X, Y).\n0.5 :: p(X, Z) :- p(X, Y), e(Y, Z).\n"), opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, src := range []string{
		"p(X, Y) :- e(X, Y).\n0.6 :: p(X, Z) :- p(X, Y), e(Y, Z).\n",
		"@min 0.4.\np(X, Y) :- e(X, Y).\n0.6 :: p(X, Z) :- p(X, Y), e(Y, Z).\n",
		"@min 0.01.\np(X, Y) :- e(X, Y).\n0.6 :: p(X, Z) :- p(X, Y), e(Y, Z).\nq(X) :- p(X, d).\n",
		"q(X) :- e(X, b).\n",
	} {
		prog := testkit.MustParse(t, src)
		ch, err := m.Apply(ctx, Delta{Program: prog})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(m.Record()), string(RecordOf(prog, opt)); got != want {
			t.Fatalf("update %d (full %v): Record\n%s\nRecordOf\n%s", i, ch.Full, got, want)
		}
	}
}

// TestTwinsOnDemand: a materialisation compiles its rules' rederive twins
// only when an update needs them: none after Materialise or an update that
// removes nothing, and after a removal only those of the rules deriving
// what was removed (the two rules of p and the one of r, not the ten of
// q_i).
func TestTwinsOnDemand(t *testing.T) {
	ctx := context.Background()
	st := testkit.NewStore(t, "a\te\tb\nb\te\tc\nc\tf\td\n")
	src := "p(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), e(Y, Z).\n"
	for i := range 10 {
		src += fmt.Sprintf("q%d(X, Y) :- f(X, Y).\n", i)
	}
	m, _, err := Materialise(ctx, st, testkit.MustParse(t, src), eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.e.Rules); n != 12 {
		t.Fatalf("after Materialise: %d rules compiled, want the program's 12", n)
	}
	if _, err := m.Apply(ctx, Delta{Program: testkit.MustParse(t, src+"r(X) :- e(X, b).\n")}); err != nil {
		t.Fatal(err)
	}
	if n := len(m.e.Rules); n != 13 {
		t.Fatalf("after adding a rule: %d rules compiled, want 13", n)
	}
	e, ok, err := st.Lookup("e")
	if err != nil || !ok {
		t.Fatal(err)
	}
	a, _, _ := st.Lookup("a")
	b, _, _ := st.Lookup("b")
	if _, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: store.Fact{Rel: e, Args: []store.ID{a, b}}}}}); err != nil {
		t.Fatal(err)
	}
	twins := 0
	for _, tw := range m.twin {
		if tw >= 0 {
			twins++
		}
	}
	if n := len(m.e.Rules); twins != 3 || n != 16 {
		t.Fatalf("after removing e(a, b): %d twins, %d rules compiled; want those of p and r (3), 16", twins, n)
	}
}
