package maintain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// TestResumeStaleRecord: Resume refuses, with ErrStaleRecord, derived
// facts that do not match the record stored with them: a proof by a rule
// the record lacks, derived facts of a relation the record's program does
// not have; and takes them with their own record. Each store is written
// with one program's facts and another program's record.
func TestResumeStaleRecord(t *testing.T) {
	const graph = "a\te\tb\nb\te\tc\nc\tf\td\n"
	written := "p(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), e(Y, Z).\n"
	for _, tc := range []struct{ name, record string }{
		{"a rule the record lacks", "p(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), f(Y, Z).\n"},
		{"a relation the program lacks", "q(X, Y) :- e(X, Y).\n"},
		{"the same program", written},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := testkit.NewStore(t, graph)
			m, _, err := Materialise(ctx, st, testkit.MustParse(t, written), eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Write(ctx); err != nil {
				t.Fatal(err)
			}
			// The stored facts again, under the other program's record.
			var facts []store.Derived
			rs, err := st.Relations()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				for d, err := range st.ScanDerived(r.Rel) {
					if err != nil {
						t.Fatal(err)
					}
					facts = append(facts, d)
				}
			}
			if len(facts) == 0 {
				t.Fatal("no derived facts written")
			}
			rec := RecordOf(testkit.MustParse(t, tc.record), eval.Options{})
			seq := func(yield func(store.Derived, error) bool) {
				for _, d := range facts {
					if !yield(d, nil) {
						return
					}
				}
			}
			if err := st.ReplaceDerivedRecord(ctx, 0, rec, seq); err != nil {
				t.Fatal(err)
			}
			prog, min, err := DecodeRecord(rec, func(src string) (*datalog.Program, error) { return parser.ParseString("record", src) })
			if err != nil {
				t.Fatal(err)
			}
			_, err = Resume(ctx, st, prog, min, nil, eval.Options{})
			if stale := errors.Is(err, ErrStaleRecord); stale != (tc.record != written) {
				t.Fatalf("Resume: %v (stale %v)", err, stale)
			}
		})
	}
}

// TestResumeMany: Resume reads back, in several batches, more derived facts
// of a relation than one batch holds, in a relation that holds base facts
// too (the transitive closure of a 160-edge chain, written into the
// chain's own relation: 12,720 derived facts), and gives the facts and
// confidences of the materialisation that wrote them.
func TestResumeMany(t *testing.T) {
	var tsv strings.Builder
	for i := range 160 {
		fmt.Fprintf(&tsv, "n%d\te\tn%d\n", i, i+1)
	}
	ctx := context.Background()
	st := testkit.NewStore(t, tsv.String())
	p := testkit.MustParse(t, "0.999 :: e(X, Z) :- e(X, Y), e(Y, Z).\n")
	m, _, err := Materialise(ctx, st, p, eval.Options{Min: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Write(ctx); err != nil {
		t.Fatal(err)
	}
	want := derivedOf(t, m)
	if len(want) <= 2*derivedBatchLen {
		t.Fatalf("%d derived facts: not enough for three batches", len(want))
	}
	ms, err := st.Materialised()
	if err != nil {
		t.Fatal(err)
	}
	prog, min, err := DecodeRecord(ms.Program, func(src string) (*datalog.Program, error) { return parser.ParseString("record", src) })
	if err != nil {
		t.Fatal(err)
	}
	r, err := Resume(ctx, st, prog, min, nil, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := derivedOf(t, r)
	if len(got) != len(want) {
		t.Fatalf("resumed %d derived facts, want %d", len(got), len(want))
	}
	for f, c := range want {
		if g, ok := got[f]; !ok || !sameConfidence(g, c) {
			t.Fatalf("%s: resumed %v (%v), want %v", f, g, ok, c)
		}
	}
	if err := checkProofs(r); err != nil {
		t.Fatal(err)
	}
}
