package reasoner

import (
	"context"
	"errors"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
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
			st := newStore(t, graph)
			m, _, err := Materialise(ctx, st, mustParse(t, written), Options{})
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
			rec := RecordOf(mustParse(t, tc.record), Options{})
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
			_, err = Resume(ctx, st, prog, min, nil, Options{})
			if stale := errors.Is(err, ErrStaleRecord); stale != (tc.record != written) {
				t.Fatalf("Resume: %v (stale %v)", err, stale)
			}
		})
	}
}
