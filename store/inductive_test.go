package store

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// tri parses "s r o" into a triple.
func tri(s string) NamedTriple {
	f := strings.Fields(s)
	return NamedTriple{S: f[0], R: f[1], O: f[2]}
}

// tris parses triples separated by commas; "" is nil.
func tris(s string) []NamedTriple {
	if s == "" {
		return nil
	}
	var out []NamedTriple
	for _, t := range strings.Split(s, ",") {
		out = append(out, tri(t))
	}
	return out
}

// inductiveBatch is a small dataset batch. Test triples t0..t3 have
// disjoint entities; the relation name "a" of the last train triple is also
// an entity name, which must not count.
func inductiveBatch() *Batch {
	b := &Batch{
		Symbols: []string{"a", "z"},
		Splits: map[string][]NamedTriple{
			"facts": tris("a r c, e r g"),
			"train": tris("a s e, b s x, x s y, f s g, h s x, x a y"),
			"valid": tris("d t e, y t z, g t a"),
			"test":  tris("a u b, c u d, e u f, g u h"),
			"other": tris("a o b"),
		},
	}
	b.Graph = append(append([]NamedTriple{}, b.Splits["facts"]...), b.Splits["train"]...)
	return b
}

// TestMakeInductive checks the split on inductiveBatch, worked out by hand.
// The generator's picks are pinned (they decide every inductive dataset):
// seed 1 samples test triples 0 and 1 for n = 2 and triple 1 for n = 1;
// seed 3 samples 2 and 3 for n = 2.
func TestMakeInductive(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		seed      uint64
		stats     InductiveStats
		train     string // the graph is facts, then train
		valid     string
		test      string
		unsampled string
		removed   string
	}{
		{
			name: "Seed1Sample2", n: 2, seed: 1,
			// entities a b c d: "a s e", "b s x", "d t e", "g t a" touch them;
			// "a r c" is a background fact and stays.
			stats:     InductiveStats{Test: 2, Entities: 4, RemovedTrain: 2, RemovedValid: 2},
			train:     "x s y, f s g, h s x, x a y",
			valid:     "y t z",
			test:      "a u b, c u d",
			unsampled: "e u f, g u h",
			removed:   "a s e, b s x, d t e, g t a",
		},
		{
			name: "Seed3Sample2", n: 2, seed: 3,
			// entities e f g h.
			stats:     InductiveStats{Test: 2, Entities: 4, RemovedTrain: 3, RemovedValid: 2},
			train:     "b s x, x s y, x a y",
			valid:     "y t z",
			test:      "e u f, g u h",
			unsampled: "a u b, c u d",
			removed:   "a s e, f s g, h s x, d t e, g t a",
		},
		{
			name: "Seed1Sample1", n: 1, seed: 1,
			// entities c d: no train triple touches them.
			stats:     InductiveStats{Test: 1, Entities: 2, RemovedTrain: 0, RemovedValid: 1},
			train:     "a s e, b s x, x s y, f s g, h s x, x a y",
			valid:     "y t z, g t a",
			test:      "c u d",
			unsampled: "a u b, e u f, g u h",
			removed:   "d t e",
		},
		{
			name: "NLargerThanTest", n: 10, seed: 1,
			// every test triple, entities a..h.
			stats:     InductiveStats{Test: 4, Entities: 8, RemovedTrain: 4, RemovedValid: 2},
			train:     "x s y, x a y",
			valid:     "y t z",
			test:      "a u b, c u d, e u f, g u h",
			unsampled: "",
			removed:   "a s e, b s x, f s g, h s x, d t e, g t a",
		},
		{
			name: "NEqualsTest", n: 4, seed: 9,
			stats:     InductiveStats{Test: 4, Entities: 8, RemovedTrain: 4, RemovedValid: 2},
			train:     "x s y, x a y",
			valid:     "y t z",
			test:      "a u b, c u d, e u f, g u h",
			unsampled: "",
			removed:   "a s e, b s x, f s g, h s x, d t e, g t a",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := inductiveBatch()
			st, err := MakeInductive(b, tc.n, tc.seed)
			if err != nil {
				t.Fatal(err)
			}
			if st != tc.stats {
				t.Errorf("stats %+v, want %+v", st, tc.stats)
			}
			in := inductiveBatch()
			want := &Batch{
				Symbols: in.Symbols,
				Graph:   append(tris("a r c, e r g"), tris(tc.train)...),
				Splits: map[string][]NamedTriple{
					"facts":             in.Splits["facts"],
					"train":             tris(tc.train),
					"valid":             tris(tc.valid),
					"test":              tris(tc.test),
					"test_unsampled":    tris(tc.unsampled),
					"inductive_removed": tris(tc.removed),
					"other":             in.Splits["other"],
				},
			}
			if !reflect.DeepEqual(b, want) {
				t.Errorf("batch\n got %v\nwant %v", b, want)
			}
			if &b.Graph[0] == &b.Splits["facts"][0] {
				t.Error("the graph shares its array with the facts split")
			}
		})
	}
}

// TestMakeInductiveOnlyTest: without train and valid splits nothing is
// removed and the graph is the facts.
func TestMakeInductiveOnlyTest(t *testing.T) {
	b := &Batch{Splits: map[string][]NamedTriple{"test": tris("a u b"), "facts": tris("a r b")}}
	st, err := MakeInductive(b, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]NamedTriple{
		"facts": tris("a r b"), "test": tris("a u b"),
		"train": nil, "valid": nil, "test_unsampled": nil, "inductive_removed": nil,
	}
	if st != (InductiveStats{Test: 1, Entities: 2}) || !reflect.DeepEqual(b.Splits, want) || !reflect.DeepEqual(b.Graph, tris("a r b")) {
		t.Errorf("stats %+v, splits %v, graph %v", st, b.Splits, b.Graph)
	}
}

// TestMakeInductiveDeterministic: the same seed gives the same batch; the
// seed matters.
func TestMakeInductiveDeterministic(t *testing.T) {
	big := func() *Batch {
		b := &Batch{Splits: map[string][]NamedTriple{}}
		for i := range 30 {
			b.Splits["test"] = append(b.Splits["test"], tri(fmt.Sprintf("h%d r t%d", i, i)))
			b.Splits["train"] = append(b.Splits["train"], tri(fmt.Sprintf("h%d s t%d", i, (i+1)%30)))
		}
		return b
	}
	samples := map[string]bool{}
	for seed := range uint64(10) {
		b1, b2 := big(), big()
		st1, err1 := MakeInductive(b1, 3, seed)
		st2, err2 := MakeInductive(b2, 3, seed)
		if err1 != nil || err2 != nil || st1 != st2 || !reflect.DeepEqual(b1, b2) {
			t.Fatalf("seed %d: two runs differ: %+v %v / %+v %v", seed, st1, err1, st2, err2)
		}
		samples[fmt.Sprint(b1.Splits["test"])] = true
	}
	if len(samples) < 2 {
		t.Errorf("10 seeds gave %d distinct samples", len(samples))
	}
}

// TestMakeInductiveErrors: the batch is unchanged after an error.
func TestMakeInductiveErrors(t *testing.T) {
	tests := []struct {
		name   string
		batch  func() *Batch
		n      int
		noTest bool
	}{
		{"NoSplits", func() *Batch { return &Batch{Graph: tris("a r b")} }, 1, true},
		{"NoTestSplit", func() *Batch { return &Batch{Splits: map[string][]NamedTriple{"train": tris("a r b")}} }, 1, true},
		{"EmptyTestSplit", func() *Batch { return &Batch{Splits: map[string][]NamedTriple{"test": {}}} }, 1, true},
		{"ZeroN", inductiveBatch, 0, false},
		{"NegativeN", inductiveBatch, -3, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.batch()
			_, err := MakeInductive(b, tc.n, 1)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrNoTestSplit) != tc.noTest {
				t.Errorf("error %v: ErrNoTestSplit %v, want %v", err, !tc.noTest, tc.noTest)
			}
			if !reflect.DeepEqual(b, tc.batch()) {
				t.Errorf("batch changed: %v", b)
			}
		})
	}
}
