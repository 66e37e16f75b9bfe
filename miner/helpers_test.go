package miner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/drumql/drumql/store"
)

// memStore loads splits (name -> "h r t" triples) into an in-memory store;
// "facts" and "train" are the graph.
func memStore(t testing.TB, splits map[string][][3]string) store.Store {
	t.Helper()
	b := &store.Batch{Splits: map[string][]store.NamedTriple{}}
	for _, name := range []string{"facts", "train", "valid", "test"} {
		for _, x := range splits[name] {
			nt := store.NamedTriple{S: x[0], R: x[1], O: x[2]}
			b.Splits[name] = append(b.Splits[name], nt)
			if name == "facts" || name == "train" {
				b.Graph = append(b.Graph, nt)
			}
		}
	}
	st := store.NewMemory()
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

// datasetStore loads a DRUM dataset folder, skipping the test when absent.
func datasetStore(t testing.TB, dir string) store.Store {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "train.txt")); err != nil {
		t.Skipf("dataset %s not available (set DRUMQL_DATASETS to the folder of the large datasets): %v", dir, err)
	}
	b, err := store.ReadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

// tinySplits is a small family-like graph.
func tinySplits() map[string][][3]string {
	return map[string][][3]string{
		"facts": {
			{"a", "husband", "b"}, {"b", "wife", "a"}, {"c", "husband", "d"},
			{"a", "father", "e"}, {"b", "mother", "e"}, {"c", "father", "f"},
			{"d", "mother", "f"}, {"e", "brother", "f"}, {"f", "sister", "e"},
			{"g", "father", "h"}, {"h", "brother", "i"}, {"g", "husband", "j"},
		},
		"train": {
			{"d", "wife", "c"}, {"j", "wife", "g"}, {"a", "father", "f"},
			{"c", "father", "e"}, {"i", "sister", "h"}, {"g", "father", "i"},
		},
		"valid": {
			{"b", "mother", "f"}, {"j", "mother", "h"},
		},
	}
}

func mustID(t testing.TB, st store.Store, name string) store.ID {
	t.Helper()
	id, ok, err := st.Lookup(name)
	if err != nil || !ok {
		t.Fatalf("lookup %q: %v %v", name, ok, err)
	}
	return id
}

// randomAttention returns an attention [rank][step][operator] of L ranks,
// T steps and K operators whose every entry is drawn by next.
func randomAttention(L, T, K int, next func() float64) [][][]float64 {
	a := make([][][]float64, L)
	for j := range a {
		a[j] = make([][]float64, T)
		for s := range a[j] {
			a[j][s] = make([]float64, K)
			for k := range a[j][s] {
				a[j][s][k] = next()
			}
		}
	}
	return a
}

// mineBytes trains on src's graph g with cfg and returns the saved model
// followed by the chain rules read off it with their support and body
// counts, one per line, and with consts the rules with constants too: what
// must not change when only the way the graph is served changes.
func mineBytes(t *testing.T, src GraphSource, g *Graph, cfg Config, consts bool) string {
	t.Helper()
	ctx := context.Background()
	m, err := TrainGraph(ctx, src, g, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	rules, err := m.Rules(ExtractOptions{Graph: g})
	if err != nil {
		t.Fatal(err)
	}
	if consts {
		cr, err := g.ConstantRules(ctx, ConstOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, cr...)
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "%s %d %d\n", r.Datalog().String(), r.Support, r.Body)
	}
	return b.String()
}
