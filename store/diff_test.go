package store_test

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/store/storetest"
)

// TestDifferential runs the same random operations on DB and Mem and checks
// after each that their visible state and their snapshots agree. The DB is
// reopened from time to time, so persistence is part of the comparison.
//
// Seeds 4 and 5 make UpdateDerived's transactions tiny and its updates
// small, so that most updates go to a layer over the visible generation
// (or change the layer in place, or merge it into a new generation).
func TestDifferential(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 42))
			dir := t.TempDir()
			db, err := store.Open(dir, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { db.Close() }()
			mem := store.NewMemory()
			layered, maxPut, delOne := seed >= 4, 100, 3
			if layered {
				maxPut, delOne = 30, 12
				store.SetTxnCount(db, 8)
			}
			layers := 0 // steps after which the store has a layer
			if seed%2 == 1 {
				// A cap the random loads reach: the overflow is compared too.
				store.SetChangeLogCap(db, 150)
				store.SetChangeLogCap(mem, 150)
			}
			dr := &diffRand{t: t, rng: rng, maxPut: maxPut, delOne: delOne}
			name, randDerived, randUpdate := dr.name, dr.derived, dr.update
			randBatch := func() *store.Batch { return diffBatch(rng) }
			for step := range 90 {
				op := rng.IntN(15)
				if layered && (op >= 6 && op < 9 || op == 12 || op == 13) && rng.IntN(4) > 0 {
					op = 10 // fewer replacements: layers grow over several updates
				}
				var errDB, errMem error
				switch {
				case op < 4:
					b := randBatch()
					var st1, st2 store.LoadStats
					st1, errDB = db.Load(context.Background(), b, nil)
					st2, errMem = mem.Load(context.Background(), b, nil)
					if !reflect.DeepEqual(st1, st2) {
						t.Fatalf("step %d: LoadStats differ: %+v vs %+v", step, st1, st2)
					}
				case op == 4:
					ctx, cancel := context.WithCancel(context.Background())
					cancel()
					b := randBatch()
					_, errDB = db.Load(ctx, b, nil)
					_, errMem = mem.Load(ctx, b, nil)
					if (errDB == nil) != (errMem == nil) {
						t.Fatalf("step %d: canceled load: %v vs %v", step, errDB, errMem)
					}
					errDB, errMem = nil, nil
				case op == 5:
					s := name("i", 80)
					var a, b store.ID
					a, errDB = db.Intern(s)
					b, errMem = mem.Intern(s)
					if a != b {
						t.Fatalf("step %d: Intern(%q) = %d vs %d", step, s, a, b)
					}
				case op < 8:
					ds := randDerived(mem)
					errDB = db.ReplaceDerived(context.Background(), ds)
					errMem = mem.ReplaceDerived(context.Background(), ds)
				case op == 8:
					errDB, errMem = db.ClearDerived(), mem.ClearDerived()
				case op == 9:
					b := randBatch()
					var st1, st2 store.RetractStats
					st1, errDB = db.Retract(context.Background(), b)
					st2, errMem = mem.Retract(context.Background(), b)
					if st1 != st2 {
						t.Fatalf("step %d: RetractStats differ: %+v vs %+v", step, st1, st2)
					}
				case op < 12:
					u := randUpdate(mem)
					errDB = db.UpdateDerived(context.Background(), u)
					errMem = mem.UpdateDerived(context.Background(), u)
				case op < 14:
					ds := distinct(randDerived(mem)) // ReplaceDerivedRecord takes each fact once
					p := []byte(name("program", 3))
					errDB = db.ReplaceDerivedRecord(context.Background(), 0, p, seq(ds))
					errMem = mem.ReplaceDerivedRecord(context.Background(), 0, p, seq(ds))
				default:
					if err := db.Close(); err != nil {
						t.Fatal(err)
					}
					if db, err = store.Open(dir, store.Options{}); err != nil {
						t.Fatal(err)
					}
					if seed%2 == 1 {
						store.SetChangeLogCap(db, 150)
					}
					if layered {
						store.SetTxnCount(db, 8)
					}
				}
				if store.LayerEntries(db) > 0 {
					layers++
				}
				if errDB != nil || errMem != nil {
					t.Fatalf("step %d (op %d): %v / %v", step, op, errDB, errMem)
				}
				if a, b := storetest.Dump(t, db), storetest.Dump(t, mem); a != b {
					t.Fatalf("step %d (op %d): stores differ:\nDB:\n%s\nMem:\n%s", step, op, a, b)
				}
			}
			if layered && layers < 10 {
				t.Errorf("the store had a layer after %d steps only", layers)
			}
			s1, err1 := db.Snapshot(context.Background())
			s2, err2 := mem.Snapshot(context.Background())
			if err1 != nil || err2 != nil || !reflect.DeepEqual(s1, s2) {
				t.Fatalf("snapshots differ (%v, %v)", err1, err2)
			}
			storetest.CheckSnapshot(t, db, s1)
		})
	}
}

// diffRand draws TestDifferential's random derived facts and updates.
type diffRand struct {
	t      *testing.T
	rng    *rand.Rand
	maxPut int // the facts drawn number fewer
	delOne int // an update deletes one visible fact in delOne
}

// name is kind followed by a random number below n.
func (r *diffRand) name(kind string, n int) string { return fmt.Sprintf("%s%d", kind, r.rng.IntN(n)) }

// derived draws derived facts over the symbols of s.
func (r *diffRand) derived(s store.Store) []store.Derived {
	n, _ := s.NumSymbols()
	if n == 0 {
		return nil
	}
	var ds []store.Derived
	for range r.rng.IntN(r.maxPut) {
		args := make([]store.ID, r.rng.IntN(4))
		for i := range args {
			args[i] = store.ID(r.rng.IntN(n))
		}
		ds = append(ds, store.Derived{
			Fact:       store.Fact{Rel: store.ID(r.rng.IntN(n)), Args: args},
			Confidence: float32(r.rng.IntN(8)+1) / 8,
			Prov:       store.Provenance{Rule: r.name("rule", 4), Body: []store.Fact{{Rel: 1, Args: args}}},
		})
	}
	return ds
}

// update draws an update of s: new facts, a record most times, and
// deletions of visible facts.
func (r *diffRand) update(s store.Store) store.DerivedUpdate {
	u := store.DerivedUpdate{Put: r.derived(s)}
	if r.rng.IntN(4) > 0 {
		u.Program = []byte(r.name("program", 3))
	}
	rels, err := s.Relations()
	if err != nil {
		r.t.Fatal(err)
	}
	for _, rel := range rels {
		for d, err := range s.ScanDerived(rel.Rel) {
			if err != nil {
				r.t.Fatal(err)
			}
			if r.rng.IntN(r.delOne) == 0 {
				u.Delete = append(u.Delete, d.Fact)
			}
		}
	}
	return u
}

// distinct keeps the first derivation of each fact of ds.
func distinct(ds []store.Derived) []store.Derived {
	seen := map[string]bool{}
	var out []store.Derived
	for _, d := range ds {
		k := fmt.Sprint(d.Fact)
		if !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}

// seq yields ds.
func seq(ds []store.Derived) iter.Seq2[store.Derived, error] {
	return func(yield func(store.Derived, error) bool) {
		for _, d := range ds {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// diffBatch returns a random batch of TestDifferential: symbols, triples,
// facts of any arity and, one time in three, named splits.
func diffBatch(rng *rand.Rand) *store.Batch {
	name := func(kind string, n int) string { return fmt.Sprintf("%s%d", kind, rng.IntN(n)) }
	b := &store.Batch{}
	for range rng.IntN(3) {
		b.Symbols = append(b.Symbols, name("s", 50))
	}
	for range rng.IntN(200) {
		b.Graph = append(b.Graph, store.NamedTriple{S: name("e", 40), R: name("r", 5), O: name("e", 40)})
	}
	for range rng.IntN(20) {
		args := make([]string, rng.IntN(4))
		for i := range args {
			args[i] = name("e", 40)
		}
		b.Facts = append(b.Facts, store.NamedFact{Rel: name("r", 7), Args: args})
	}
	if rng.IntN(3) == 0 {
		b.Splits = map[string][]store.NamedTriple{}
		for range 1 + rng.IntN(2) {
			sp := name("split", 3)
			for range rng.IntN(20) {
				b.Splits[sp] = append(b.Splits[sp], store.NamedTriple{S: name("e", 60), R: name("r", 5), O: name("e", 60)})
			}
		}
	}
	return b
}
