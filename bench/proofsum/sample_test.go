package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// TestSample: a sample is n distinct derived facts of the store, each a
// line that parses back to the fact's names (names that need quoting
// included); the same seed gives the same lines; over many seeds every
// fact is chosen (the reservoir replaces); n at least the number of facts
// gives them all.
func TestSample(t *testing.T) {
	graph := []store.NamedTriple{{S: "a", R: "e", O: "b"}}
	rule := "p.dl\t1\t1\t0.5\t0.5 :: h(X, Y) :- e(X, Y)."
	names := []string{`say "hi"`, "/m/0x", "a", "b", "7", "c", "d", "x y"}
	var ds []derived
	var want []string
	for i, n := range names {
		m := names[(i+1)%len(names)]
		ds = append(ds, derived{[]string{"h", n, m}, 0.5, rule, [][]string{{"e", "a", "b"}}})
		want = append(want, fmt.Sprintf("h|%s|%s", n, m))
	}
	db := storeWith(t, nil, graph, ds)
	draw := func(n int, seed uint64) []string {
		t.Helper()
		var b bytes.Buffer
		if err := sample(&b, db, n, seed); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			p, err := parser.ParseString("sample", line+".")
			if err != nil || len(p.Facts) != 1 {
				t.Fatalf("%q does not parse as a fact: %v", line, err)
			}
			a := p.Facts[0].Atom
			key := a.Pred
			for _, x := range a.Args {
				key += "|" + x.Value
			}
			if !slices.Contains(want, key) {
				t.Fatalf("%q is not a derived fact of the store", line)
			}
			got = append(got, key)
		}
		return got
	}
	chosen := map[string]bool{}
	for seed := range uint64(40) {
		got := draw(3, seed)
		if len(got) != 3 || got[0] == got[1] || got[0] == got[2] || got[1] == got[2] {
			t.Fatalf("seed %d: %q, want 3 distinct facts", seed, got)
		}
		if again := draw(3, seed); !slices.Equal(again, got) {
			t.Fatalf("seed %d: %q, then %q", seed, got, again)
		}
		for _, k := range got {
			chosen[k] = true
		}
	}
	if len(chosen) != len(want) {
		t.Errorf("40 samples of 3 chose %d of the %d facts", len(chosen), len(want))
	}
	all := draw(len(want)+5, 1)
	slices.Sort(all)
	sorted := slices.Clone(want)
	slices.Sort(sorted)
	if !slices.Equal(all, sorted) {
		t.Errorf("a sample larger than the store: %q, want every fact %q", all, sorted)
	}
	if err := sample(&bytes.Buffer{}, db, 0, 1); err == nil {
		t.Error("a sample of 0: no error")
	}
}
