package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/drumql/drumql/store"
)

// materialised is s.Materialised, failing the test on an error.
func materialised(t *testing.T, s store.Store) store.MaterialState {
	t.Helper()
	ms, err := s.Materialised()
	if err != nil {
		t.Fatalf("Materialised: %v", err)
	}
	return ms
}

// changes renders a change log as +fact / -fact strings, in its order.
func changes(t *testing.T, s store.Store, cs []store.BaseChange) []string {
	t.Helper()
	out := make([]string, len(cs))
	for i, c := range cs {
		sign := "-"
		if c.Added {
			sign = "+"
		}
		out[i] = sign + FactString(s, c.Fact)
	}
	return out
}

// wantState checks the record and change log of s.
func wantState(t *testing.T, s store.Store, program []byte, overflow bool, want ...string) {
	t.Helper()
	ms := materialised(t, s)
	if (ms.Program == nil) != (program == nil) || string(ms.Program) != string(program) {
		t.Errorf("Program = %q (nil: %v), want %q (nil: %v)", ms.Program, ms.Program == nil, program, program == nil)
	}
	if ms.Overflow != overflow {
		t.Errorf("Overflow = %v, want %v", ms.Overflow, overflow)
	}
	if got := changes(t, s, ms.Changes); !slices.Equal(got, want) {
		t.Errorf("Changes = %v, want %v", got, want)
	}
}

// seqOf yields ds.
func seqOf(ds []store.Derived) func(func(store.Derived, error) bool) {
	return reusing(ds, -1, nil)
}

func testRecordWriteKinds(t *testing.T, s store.Store) {
	ctx := context.Background()
	wantState(t, s, nil, false)
	ds := derivedSet(t, s)
	wantState(t, s, nil, false) // no record: loads are not logged
	husband, person := ds[0].Fact.Rel, ds[2].Fact.Rel
	for i, w := range []struct {
		name    string
		write   func() error
		program []byte
		derived []store.Derived // of husband and person, in scan order
	}{
		{"ReplaceDerivedRecord", func() error { return s.ReplaceDerivedRecord(ctx, 0, []byte("p1"), seqOf(ds)) }, []byte("p1"), []store.Derived{ds[1], ds[0], ds[3], ds[2]}},
		{"ReplaceDerived", func() error { return s.ReplaceDerived(ctx, ds[:1]) }, nil, ds[:1]},
		{"ReplaceDerivedRecord empty", func() error { return s.ReplaceDerivedRecord(ctx, 0, []byte{}, seqOf(ds[2:3])) }, []byte{}, ds[2:3]},
		{"ReplaceDerivedSeq", func() error { return s.ReplaceDerivedSeq(ctx, 0, seqOf(ds[1:2])) }, nil, ds[1:2]},
		{"ReplaceDerivedRecord again", func() error { return s.ReplaceDerivedRecord(ctx, 0, []byte("p2\x00"), seqOf(nil)) }, []byte("p2\x00"), nil},
		{"ClearDerived", s.ClearDerived, nil, nil},
		{"ReplaceDerivedRecord large", func() error {
			return s.ReplaceDerivedRecord(ctx, 0, largeProgram(), seqOf(ds[3:]))
		}, largeProgram(), ds[3:]},
		{"ReplaceDerivedRecord nil", func() error { return s.ReplaceDerivedRecord(ctx, 0, nil, seqOf(ds[:2])) }, nil, []store.Derived{ds[1], ds[0]}},
	} {
		// A change logged before the write, if the store keeps a log.
		load(t, s, &store.Batch{Facts: []store.NamedFact{{Rel: "person", Args: []string{fmt.Sprint("p", i)}}}})
		if err := w.write(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		wantState(t, s, w.program, false)
		got := append(collect(t, s.ScanDerived(husband)), collect(t, s.ScanDerived(person))...)
		if len(got) != len(w.derived) || len(got) > 0 && !reflect.DeepEqual(got, w.derived) {
			t.Errorf("%s: derived facts %+v, want %+v", w.name, got, w.derived)
		}
	}
}

// largeProgram is a record of a few hundred KiB.
func largeProgram() []byte {
	b := make([]byte, 300<<10)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

func testChangeLogLoads(t *testing.T, s store.Store) {
	ctx := context.Background()
	load(t, s, &store.Batch{Graph: family})
	before := Dump(t, s)
	if err := s.ReplaceDerivedRecord(ctx, 0, []byte("prog"), seqOf(nil)); err != nil {
		t.Fatal(err)
	}
	if after := Dump(t, s); after == before {
		t.Error("Dump does not show the record")
	}
	wantState(t, s, []byte("prog"), false)
	// Present facts are not logged; new ones are, sorted by relation
	// (id), arity, then arguments (ids).
	load(t, s, &store.Batch{
		Graph: []store.NamedTriple{family[0], {S: "erin", R: "mother", O: "frank"}, {S: "bob", R: "husband", O: "dana"}},
		Facts: []store.NamedFact{{Rel: "husband"}, {Rel: "husband", Args: []string{"x", "y", "z"}}, {Rel: "husband", Args: []string{"carl"}}, {Rel: "mother", Args: []string{"erin", "frank"}}},
	})
	want := []string{"+husband()", "+husband(carl)", "+husband(bob,dana)", "+husband(x,y,z)", "+mother(erin,frank)"}
	wantState(t, s, []byte("prog"), false, want...)
	// Loading the same again logs nothing more; a canceled load nothing.
	load(t, s, &store.Batch{Graph: []store.NamedTriple{{S: "erin", R: "mother", O: "frank"}}})
	c, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Load(c, bigBatch(3000), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled Load = %v", err)
	}
	wantState(t, s, []byte("prog"), false, want...)
	load(t, s, &store.Batch{Facts: []store.NamedFact{{Rel: "father", Args: []string{"a"}}}})
	wantState(t, s, []byte("prog"), false, append(want, "+father(a)")...)
	// A new record clears the log.
	if err := s.ReplaceDerivedRecord(ctx, 0, []byte("prog2"), seqOf(nil)); err != nil {
		t.Fatal(err)
	}
	wantState(t, s, []byte("prog2"), false)
}

// RunChangeLogCap runs the conformance cases of the change log's cap. open
// must return a new, empty store whose change log holds at most
// maxChangeLog facts (store.MaxChangeLog is too large for a test);
// RunChangeLogCap closes it.
func RunChangeLogCap(t *testing.T, open func(t *testing.T, maxChangeLog int) store.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Loads", testCapLoads},
		{"OneLargeLoad", testCapOneLoad},
		{"Retract", testCapRetract},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t, 5)
			t.Cleanup(func() { s.Close() })
			tc.fn(t, s)
		})
	}
}

// facts names n unary facts of rel.
func facts(rel string, from, to int) []store.NamedFact {
	var fs []store.NamedFact
	for i := from; i < to; i++ {
		fs = append(fs, store.NamedFact{Rel: rel, Args: []string{fmt.Sprintf("c%02d", i)}})
	}
	return fs
}

// added renders facts as the log entries of their addition.
func added(fs []store.NamedFact) []string {
	var out []string
	for _, f := range fs {
		out = append(out, "+"+f.Rel+"("+f.Args[0]+")")
	}
	return out
}

func testCapLoads(t *testing.T, s store.Store) {
	ctx := context.Background()
	load(t, s, &store.Batch{Facts: facts("q", 0, 10)})
	if err := s.ReplaceDerivedRecord(ctx, 0, []byte("p"), seqOf(nil)); err != nil {
		t.Fatal(err)
	}
	load(t, s, &store.Batch{Facts: facts("q", 8, 13)}) // 3 new
	wantState(t, s, []byte("p"), false, added(facts("q", 10, 13))...)
	load(t, s, &store.Batch{Facts: facts("q", 10, 15)}) // 2 new: 5 in all, the cap
	wantState(t, s, []byte("p"), false, added(facts("q", 10, 15))...)
	load(t, s, &store.Batch{Facts: facts("q", 15, 16)}) // the sixth
	wantState(t, s, []byte("p"), true)
	load(t, s, &store.Batch{Facts: facts("q", 16, 17)})
	wantState(t, s, []byte("p"), true)
	// A new record starts a new log.
	if err := s.ReplaceDerivedRecord(ctx, 0, []byte("p2"), seqOf(nil)); err != nil {
		t.Fatal(err)
	}
	wantState(t, s, []byte("p2"), false)
	load(t, s, &store.Batch{Facts: facts("q", 17, 18)})
	wantState(t, s, []byte("p2"), false, added(facts("q", 17, 18))...)
}

func testCapOneLoad(t *testing.T, s store.Store) {
	ctx := context.Background()
	if err := s.ReplaceDerivedRecord(ctx, 0, []byte("p"), seqOf(nil)); err != nil {
		t.Fatal(err)
	}
	load(t, s, &store.Batch{Facts: facts("q", 0, 6)})
	wantState(t, s, []byte("p"), true)
	if err := s.ReplaceDerived(ctx, nil); err != nil {
		t.Fatal(err)
	}
	wantState(t, s, nil, false)
}
