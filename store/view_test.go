package store

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// viewState is what a test reads through a store: the base facts of
// "r", the derived facts of "d", the relations and the symbols.
func viewState(t *testing.T, st Store) (base, derived []string, rels []RelationStats, nsym int) {
	t.Helper()
	nsym, err := st.NumSymbols()
	if err != nil {
		t.Fatal(err)
	}
	if rels, err = st.Relations(); err != nil {
		t.Fatal(err)
	}
	name := func(f Fact) string {
		s := ""
		for _, a := range f.Args {
			n, err := st.Name(a)
			if err != nil {
				t.Fatal(err)
			}
			s += n + " "
		}
		return s
	}
	if r, ok, err := st.Lookup("r"); err != nil {
		t.Fatal(err)
	} else if ok {
		for f, err := range st.Scan(r) {
			if err != nil {
				t.Fatal(err)
			}
			base = append(base, name(f))
		}
	}
	if d, ok, err := st.Lookup("d"); err != nil {
		t.Fatal(err)
	} else if ok {
		for f, err := range st.ScanDerived(d) {
			if err != nil {
				t.Fatal(err)
			}
			derived = append(derived, name(f.Fact))
		}
	}
	return base, derived, rels, nsym
}

func TestReadView(t *testing.T) {
	for _, kind := range []string{"badger", "mem"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			var st Store
			if kind == "badger" {
				st = mustOpen(t, t.TempDir())
			} else {
				st = NewMemory()
			}
			defer st.Close()
			d, a, b := loadViewGraph(t, st)
			if err := st.ReplaceDerived(ctx, []Derived{{Fact: Fact{Rel: d, Args: []ID{b, a}}, Confidence: 1}}); err != nil {
				t.Fatal(err)
			}
			base0, derived0, rels0, n0 := viewState(t, st)
			v, err := st.(Viewer).ReadView()
			if err != nil {
				t.Fatal(err)
			}
			// The store changes: a fact added and one retracted, new
			// symbols, the derived facts updated.
			if _, err := st.Load(ctx, &Batch{Graph: []NamedTriple{{"c", "r", "e"}}}, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Retract(ctx, &Batch{Graph: []NamedTriple{{"a", "r", "b"}}}); err != nil {
				t.Fatal(err)
			}
			c, _, _ := st.Lookup("c")
			if err := st.UpdateDerived(ctx, DerivedUpdate{Put: []Derived{{Fact: Fact{Rel: d, Args: []ID{c, c}}, Confidence: 1}}, Delete: []Fact{{Rel: d, Args: []ID{b, a}}}}); err != nil {
				t.Fatal(err)
			}
			base1, derived1, _, _ := viewState(t, st)
			if slices.Equal(base0, base1) || slices.Equal(derived0, derived1) {
				t.Fatalf("the store did not change: base %v then %v, derived %v then %v", base0, base1, derived0, derived1)
			}
			vb, vd, vr, vn := viewState(t, v)
			if !slices.Equal(vb, base0) || !slices.Equal(vd, derived0) || !slices.Equal(vr, rels0) || vn != n0 {
				t.Errorf("the view reads base %v, derived %v, relations %v, %d symbols; want the state it was taken of: %v, %v, %v, %d", vb, vd, vr, vn, base0, derived0, rels0, n0)
			}
			if _, ok, err := v.Lookup("c"); ok || err != nil {
				t.Errorf("the view finds a symbol added after it was taken (error %v)", err)
			}
			if kind == "badger" {
				if _, err := v.Intern("zz"); !errors.Is(err, ErrReadOnly) {
					t.Errorf("a write to a view: %v, want ErrReadOnly", err)
				}
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := v.Relations(); !errors.Is(err, ErrClosed) {
				t.Errorf("a closed view reads: %v, want ErrClosed", err)
			}
			if b2, _, _, _ := viewState(t, st); !slices.Equal(b2, base1) {
				t.Errorf("closing the view changed the store: %v, want %v", b2, base1)
			}
		})
	}
}

// TestReadViewKeepsReplacedGeneration: derived facts replaced whole (a new
// generation, the old one dropped) stay readable in a view taken before,
// and are dropped once it closes.
func TestReadViewKeepsReplacedGeneration(t *testing.T) {
	ctx := context.Background()
	st := mustOpen(t, t.TempDir())
	defer st.Close()
	d, a, b := loadViewGraph(t, st)
	big := make([]Derived, 0, 3000)
	for i := range 3000 {
		big = append(big, Derived{Fact: Fact{Rel: d, Args: []ID{a, b, ID(i)}}, Confidence: 1})
	}
	if err := st.ReplaceDerivedRecord(ctx, 0, []byte("p1"), seqOf(big)); err != nil {
		t.Fatal(err)
	}
	v, err := st.ReadView()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.ReplaceDerivedRecord(ctx, 0, []byte("p2"), seqOf([]Derived{{Fact: Fact{Rel: d, Args: []ID{b, a}}, Confidence: 1}})); err != nil {
		t.Fatal(err)
	}
	count := func(st Store) int {
		n := 0
		for _, err := range st.ScanDerived(d) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n
	}
	if n := count(st); n != 1 {
		t.Fatalf("the store has %d derived facts, want 1", n)
	}
	if n := count(v); n != 3000 {
		t.Errorf("the view taken before the replacement reads %d derived facts, want 3000", n)
	}
	if ms, err := v.Materialised(); err != nil || string(ms.Program) != "p1" {
		t.Errorf("the view's record: %q (%v), want p1", ms.Program, err)
	}
	if len(st.pins.deferred) != 1 {
		t.Errorf("%d drops deferred, want the old generation's", len(st.pins.deferred))
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	st.pins.mu.Lock()
	n, views := len(st.pins.deferred), len(st.pins.views)
	st.pins.mu.Unlock()
	if n != 0 || views != 0 {
		t.Errorf("after the view closed: %d drops deferred, %d views open; want none", n, views)
	}
}

// seqOf yields ds.
func seqOf(ds []Derived) func(func(Derived, error) bool) {
	return func(yield func(Derived, error) bool) {
		for _, d := range ds {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// loadViewGraph loads r(a, b) and d(a, b) into st and returns the ids of
// d, a and b.
func loadViewGraph(t *testing.T, st Store) (d, a, b ID) {
	t.Helper()
	if _, err := st.Load(context.Background(), &Batch{Graph: []NamedTriple{{"a", "r", "b"}, {"a", "d", "b"}}}, nil); err != nil {
		t.Fatal(err)
	}
	d, _, _ = st.Lookup("d")
	a, _, _ = st.Lookup("a")
	b, _, _ = st.Lookup("b")
	return d, a, b
}
