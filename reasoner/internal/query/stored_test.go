package query

import (
	"context"
	"iter"
	"slices"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// countingStore counts the facts its scans yield.
type countingStore struct {
	store.Store
	read int
}

func (s *countingStore) Scan(rel store.ID) iter.Seq2[store.Fact, error] {
	return countFacts(s, s.Store.Scan(rel))
}

func (s *countingStore) ScanFirst(rel, a store.ID) iter.Seq2[store.Fact, error] {
	return countFacts(s, s.Store.ScanFirst(rel, a))
}

func (s *countingStore) ScanObject(rel, o store.ID) iter.Seq2[store.Fact, error] {
	return countFacts(s, s.Store.ScanObject(rel, o))
}

func (s *countingStore) ScanDerived(rel store.ID) iter.Seq2[store.Derived, error] {
	return countFacts(s, s.Store.ScanDerived(rel))
}

func countFacts[T any](s *countingStore, seq iter.Seq2[T, error]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for x, err := range seq {
			s.read++
			if !yield(x, err) {
				return
			}
		}
	}
}

// TestStoredAnswersStream: a query without rules over the store's base and
// derived facts is answered as the facts are read: QueryFunc stopped at the
// first answer has read one fact of each scan, not all of them; the base
// and derived facts of one relation are merged, a fact that is both (a base
// fact loaded after infer derived it) answered once with confidence 1; and
// QueryFunc, Count and Query agree. On the memory store and on Badger (the
// merge relies on both scans' order).
func TestStoredAnswersStream(t *testing.T) {
	t.Run("memory", func(t *testing.T) { testStoredAnswers(t, testkit.NewStore(t, chainTSV(200, "e"))) })
	t.Run("badger", func(t *testing.T) {
		st, err := store.Open(t.TempDir(), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		testkit.LoadTSV(t, st, chainTSV(200, "e"))
		testStoredAnswers(t, st)
	})
}

func testStoredAnswers(t *testing.T, st store.Store) {
	ctx := context.Background()
	prog := testkit.MustParse(t, "tc(X, Y) :- e(X, Y).\ntc(X, Z) :- tc(X, Y), e(Y, Z).\n0.5 :: e(X, Z) :- e(X, Y), e(Y, Z).\n")
	if _, err := eval.Infer(ctx, st, prog, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	// e(v0, v2) is now a derived fact of confidence 0.5, and becomes a base
	// fact too.
	if _, err := st.Load(ctx, &store.Batch{Graph: []store.NamedTriple{{S: "v0", R: "e", O: "v2"}}}, nil); err != nil {
		t.Fatal(err)
	}
	cs := &countingStore{Store: st}
	tc := testkit.MustQuery(t, "tc(X, Y)?")
	first := 0
	if err := QueryFunc(ctx, cs, nil, tc, eval.Options{}, func(eval.Answer) bool { first++; return false }); err != nil {
		t.Fatal(err)
	}
	if first != 1 || cs.read > 2 {
		t.Errorf("QueryFunc stopped at the first answer read %d facts (yielded %d answers), want at most 2", cs.read, first)
	}
	e := testkit.MustQuery(t, "e(X, Y)?")
	for _, c := range []struct {
		q    string
		want int // -1: as many as Query gives
	}{
		{"tc(X, Y)?", 200 * 199 / 2},
		{"tc(v3, Y)?", 196},
		{"tc(X, v3)?", 3},
		{"tc(v3, v9)?", 1},
		{"e(X, Y)?", -1},
		{"e(v0, Y)?", -1},
		{"e(X, v2)?", 2},
		{"e(v0, _)?", 1},
		{"e(_, Y)?", 199},
		{"e(v0, v2)?", 1},
	} {
		q := testkit.MustQuery(t, c.q)
		all, err := Query(ctx, st, nil, q, eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var streamed []eval.Answer
		if err := QueryFunc(ctx, st, nil, q, eval.Options{}, keepAnswers(&streamed)); err != nil {
			t.Fatal(err)
		}
		n, err := Count(ctx, st, nil, q, eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := oracle.SameAnswers(streamed, all); err != nil || n != len(all) || c.want >= 0 && n != c.want {
			t.Errorf("%s: %d answers, count %d, %d streamed (%v); want %d", c.q, len(all), n, len(streamed), err, c.want)
		}
	}
	as, err := Query(ctx, st, nil, e, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, a := range as {
		if a.Values[0] == "v0" && a.Values[1] == "v2" {
			seen++
			if a.Confidence != 1 {
				t.Errorf("e(v0, v2) has confidence %g, want 1 (a base fact)", a.Confidence)
			}
		}
	}
	if seen != 1 {
		t.Errorf("e(v0, v2) answered %d times, want once", seen)
	}
}

// keepAnswers returns a QueryFunc yield that appends copies of the answers
// to as (QueryFunc reuses an answer's slices for the next one).
func keepAnswers(as *[]eval.Answer) func(eval.Answer) bool {
	return func(a eval.Answer) bool {
		a.Values = slices.Clone(a.Values)
		a.Fact.Args = slices.Clone(a.Fact.Args)
		*as = append(*as, a)
		return true
	}
}

// TestAnswerMakerReuse: QueryFunc's answers are built without allocating
// (the collector has nothing to do while millions stream out), and the
// answers Query collects each have their own slices.
func TestAnswerMakerReuse(t *testing.T) {
	st := testkit.NewStore(t, chainTSV(5, "e"))
	syms, err := eval.NewSymtab(st)
	if err != nil {
		t.Fatal(err)
	}
	q := testkit.MustQuery(t, "e(X, _, Y, c)?")
	args := []uint32{mustID(t, st, "v1"), ^uint32(0), mustID(t, st, "v2"), mustID(t, st, "v3")}
	m := eval.NewAnswerMaker(syms, q, true)
	if _, err := m.Answer(args, 1); err != nil { // fills the name cache
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { m.Answer(args, 0.5) }); n != 0 {
		t.Errorf("reused answers: %g allocations an answer, want 0", n)
	}
	a, _ := m.Answer(args, 0.5)
	if got := oracle.FormatAnswers([]eval.Answer{a}); got != "v1 v2 0.5\n" || a.Fact.String() != "e(v1, _, v2, v3)" {
		t.Errorf("answer %q, fact %s", got, a.Fact)
	}
	fresh := eval.NewAnswerMaker(syms, q, false)
	a1, _ := fresh.Answer(args, 1)
	args[0] = mustID(t, st, "v4")
	a2, _ := fresh.Answer(args, 1)
	if a1.Values[0] != "v1" || a2.Values[0] != "v4" || a1.Fact.Args[0].Value != "v1" {
		t.Errorf("fresh answers share slices: %v %v", a1, a2)
	}
}
