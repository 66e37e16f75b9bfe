package maintain

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/query"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// derivedOf returns the derived facts of m ("pred(args)" -> confidence).
func derivedOf(t testing.TB, m *Materialisation) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	e := m.e
	for _, r := range e.Rels {
		if r.Internal {
			continue
		}
		for k := range int32(r.Len()) {
			p, c := r.ProvAt(k), r.ConfAt(k)
			if c == 0 || p == eval.ProvBase || p == eval.ProvDeleted {
				continue
			}
			var args []string
			for _, a := range r.Tuple(k) {
				n, err := e.Syms.Name(a)
				if err != nil {
					t.Fatal(err)
				}
				args = append(args, n)
			}
			out[r.Display+"("+strings.Join(args, ",")+")"] = c
		}
	}
	return out
}

// oracleDerived is the oracle's result without the base facts.
func oracleDerived(t testing.TB, base []store.NamedTriple, p *datalog.Program, min float64) map[string]float64 {
	db := oracle.Naive(t, base, p, min)
	isBase := map[string]bool{}
	for _, tr := range base {
		isBase[tr.R+"("+tr.S+","+tr.O+")"] = true
	}
	out := map[string]float64{}
	for pred, m := range db {
		for k, c := range m {
			f := pred + "(" + strings.Join(oracle.Key(k), ",") + ")"
			if !isBase[f] {
				out[f] = c
			}
		}
	}
	return out
}

// sameDerived compares two sets of derived facts, confidences within 1e-12
// relative.
func sameDerived(got, want map[string]float64) error { return sameWithin(got, want, 1e-12) }

// sameWithin compares two sets of derived facts, confidences within tol
// relative.
func sameWithin(got, want map[string]float64, tol float64) error {
	var diffs []string
	for f, w := range want {
		g, ok := got[f]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("missing %s (%g)", f, w))
		case math.Abs(g-w) > tol*math.Max(math.Abs(w), math.Abs(g)):
			diffs = append(diffs, fmt.Sprintf("%s: %g, want %g", f, g, w))
		}
	}
	for f, g := range got {
		if _, ok := want[f]; !ok {
			diffs = append(diffs, fmt.Sprintf("extra %s (%g)", f, g))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	slices.Sort(diffs)
	if len(diffs) > 12 {
		diffs = append(diffs[:12], fmt.Sprintf("... %d differences", len(diffs)))
	}
	return fmt.Errorf("%s", strings.Join(diffs, "\n"))
}

// checkProofs checks that every derived fact's stored proof holds and is
// worth its confidence: body facts present, negated facts at most as
// confident as the proof assumed (the best match), the product equal to
// the confidence within 1e-12 relative.
func checkProofs(m *Materialisation) error {
	e := m.e
	for ri, r := range e.Rels {
		if r.Internal {
			continue
		}
		for t := range int32(r.Len()) {
			p, c := r.ProvAt(t), r.ConfAt(t)
			if c == 0 || p == eval.ProvBase || p == eval.ProvDeleted {
				continue
			}
			if p <= eval.ProvFact0 {
				f := &m.u.Prog.Facts[eval.ProvFact0-p]
				if eval.WeightOf(f.Weight) != c {
					return fmt.Errorf("%s#%d: program fact of weight %g, confidence %g", r.Name, t, f.Weight, c)
				}
				continue
			}
			rule := e.Rules[e.Pool.Rule(p)]
			if !m.current[m.main[e.Pool.Rule(p)]] {
				return fmt.Errorf("%s#%d: proof by a removed rule", r.Name, t)
			}
			_, refs := e.Pool.Record(p, rule.Nprov)
			v := rule.Weight
			for j := range rule.Nprov {
				if refs[2*j] == eval.NoMatch {
					continue
				}
				br := e.Rels[refs[2*j]]
				bc := br.ConfAt(int32(refs[2*j+1]))
				if j < rule.Npos {
					if bc == 0 {
						return fmt.Errorf("%s#%d (rule %d): body fact %s#%d is gone", r.Name, t, ri, br.Name, refs[2*j+1])
					}
					v *= bc
				} else {
					v *= 1 - bc
				}
			}
			if math.Abs(v-c) > 1e-12*c {
				return fmt.Errorf("%s#%d: proof worth %g, confidence %g", r.Name, t, v, c)
			}
		}
	}
	return nil
}

// mutateProgram returns src with one random edit: a rule or fact removed,
// a line of another random program added, a weight changed, or the
// threshold raised or lowered.
func mutateProgram(rng *rand.Rand, src string, withNeg bool) string {
	lines := strings.Split(strings.TrimSpace(src), "\n")
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	switch rng.IntN(5) {
	case 0: // remove a line
		if len(lines) > 0 {
			i := rng.IntN(len(lines))
			lines = slices.Delete(lines, i, i+1)
		}
	case 1, 2: // add a line
		_, _, other := oracle.RandomCase(rng, withNeg)
		ol := strings.Split(strings.TrimSpace(other), "\n")
		if l := ol[rng.IntN(len(ol))]; l != "" {
			lines = slices.Insert(lines, rng.IntN(len(lines)+1), l)
		}
	case 3: // change a weight
		if len(lines) > 0 {
			i := rng.IntN(len(lines))
			l := lines[i]
			if k := strings.Index(l, " :: "); k >= 0 && !strings.HasPrefix(l, "@") {
				l = l[k+4:]
			}
			if !strings.HasPrefix(l, "@") {
				lines[i] = []string{"", "0.95 :: ", "0.3 :: ", "0.6 :: "}[rng.IntN(4)] + l
			}
		}
	default: // the threshold
		lines = slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, "@min") })
		if rng.IntN(3) != 0 {
			lines = append(lines, []string{"@min 0.2.", "@min 0.4.", "@min 0.05."}[rng.IntN(3)])
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestMaintainDifferential applies random sequences of updates (base facts
// added, rules and facts added and removed, weights and thresholds changed)
// to materialisations of random programs (recursion, negation, weights,
// constants), and compares each state with an evaluation from scratch and
// with the naive oracle, and checks every stored proof.
func TestMaintainDifferential(t *testing.T) { maintainDifferential(t, false) }

// TestMaintainDifferentialCompacted is TestMaintainDifferential with the
// materialisation compacted before every update: the removed tuples'
// relations rebuilt, the proofs' references renumbered.
func TestMaintainDifferentialCompacted(t *testing.T) { maintainDifferential(t, true) }

// maintainDifferential runs the differential test of maintenance, with
// the materialisation compacted before every update if compact is set.
func maintainDifferential(t *testing.T, compact bool) {
	ctx := context.Background()
	seeds := 150
	if testing.Short() {
		seeds = 40
	}
	var incremental, full int
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		withNeg := seed%2 == 1
		base, _, src := oracle.RandomCase(rng, withNeg)
		p := testkit.MustParse(t, src)
		if datalog.Validate(p).HasErrors() {
			continue
		}
		st := testkit.NewStore(t, oracle.TripleTSV(base))
		m, _, err := Materialise(ctx, st, p, eval.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		nodes := 9
		for step := range 8 {
			var d Delta
			newBase := slices.Clone(base)
			newSrc := src
			if rng.IntN(2) == 0 {
				// add base facts
				var b store.Batch
				for range 1 + rng.IntN(3) {
					tr := store.NamedTriple{S: fmt.Sprint("n", rng.IntN(nodes)), R: fmt.Sprint("e", rng.IntN(2)), O: fmt.Sprint("n", rng.IntN(nodes))}
					if rng.IntN(5) == 0 {
						tr.R, tr.O = "v", oracle.GraphValues[rng.IntN(len(oracle.GraphValues))]
					}
					if !slices.Contains(newBase, tr) {
						newBase = append(newBase, tr)
						b.Graph = append(b.Graph, tr)
					}
				}
				if _, err := st.Load(ctx, &b, nil); err != nil {
					t.Fatal(err)
				}
				for _, tr := range b.Graph {
					d.Base = append(d.Base, FactChange{Fact: namedFact(t, st, tr), Added: true})
				}
			} else {
				newSrc = mutateProgram(rng, src, withNeg)
				np := testkit.MustParse(t, newSrc)
				if datalog.Validate(np).HasErrors() {
					continue
				}
				d.Program = np
			}
			if compact {
				m.compact()
				if err := checkProofs(m); err != nil {
					t.Fatalf("seed %d step %d: proofs after compaction: %v", seed, step, err)
				}
			}
			ch, err := m.Apply(ctx, d)
			if err != nil {
				t.Fatalf("seed %d step %d: Apply: %v\nprogram:\n%s", seed, step, err, newSrc)
			}
			if ch.Full {
				full++
			} else {
				incremental++
			}
			prevSrc := src
			base, src = newBase, newSrc
			prog := testkit.MustParse(t, src)
			fail := func(what string, err error) {
				t.Helper()
				t.Fatalf("seed %d step %d (%s): %s:\n%v\nprogram:\n%s\nbase:\n%s\nprevious program:\n%s", seed, step, ch, what, err, src, oracle.TripleTSV(base), prevSrc)
			}
			got := derivedOf(t, m)
			fresh, _, err := Materialise(ctx, testkit.NewStore(t, oracle.TripleTSV(base)), prog, eval.Options{})
			if err != nil {
				fail("from scratch", err)
			}
			if err := sameDerived(got, derivedOf(t, fresh)); err != nil {
				fail("against a computation from scratch", err)
			}
			min := eval.Exact
			if mn, ok := prog.Threshold(); ok {
				min = mn
			}
			if err := sameDerived(got, oracleDerived(t, base, prog, min)); err != nil {
				fail("against the oracle", err)
			}
			if err := checkProofs(m); err != nil {
				fail("proofs", err)
			}
		}
	}
	t.Logf("%d incremental updates, %d recomputations", incremental, full)
	if incremental < 5*full {
		t.Errorf("%d incremental updates against %d recomputations: the differential test hardly tests maintenance", incremental, full)
	}
}

// namedFact encodes a triple with the store's ids.
func namedFact(t testing.TB, st store.Store, tr store.NamedTriple) store.Fact {
	t.Helper()
	id := func(n string) store.ID {
		x, ok, err := st.Lookup(n)
		if err != nil || !ok {
			t.Fatalf("lookup %q: %v %v", n, ok, err)
		}
		return x
	}
	return store.Fact{Rel: id(tr.R), Args: []store.ID{id(tr.S), id(tr.O)}}
}

// storedDerived returns the store's derived facts ("pred(args)" ->
// confidence) and checks that every stored proof's body facts exist.
func storedDerived(t testing.TB, st store.Store) map[string]float64 {
	t.Helper()
	rs, err := st.Relations()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, r := range rs {
		for d, err := range st.ScanDerived(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			out[oracle.FactString(t, st, d.Fact)] = float64(d.Confidence)
		}
	}
	return out
}

// sameStored compares two stores' derived facts, confidences (float32 in
// the store) within 1e-6 relative.
func sameStored(got, want map[string]float64) error { return sameWithin(got, want, 1e-6) }

// updateStore brings st's derived facts up to date with prog the way drumql
// infer does: resume from the stored facts and record, apply the logged
// base changes and the program, write the difference.
func updateStore(t testing.TB, st store.Store, prog *datalog.Program) Change {
	t.Helper()
	ctx := context.Background()
	ms, err := st.Materialised()
	if err != nil {
		t.Fatal(err)
	}
	old, min, err := DecodeRecord(ms.Program, func(src string) (*datalog.Program, error) {
		return parser.ParseString("record", src)
	})
	if err != nil {
		t.Fatal(err)
	}
	var changes []FactChange
	for _, c := range ms.Changes {
		changes = append(changes, FactChange{Fact: c.Fact, Added: c.Added})
	}
	m, err := Resume(ctx, st, old, min, changes, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkProofs(m); err != nil {
		t.Fatalf("resumed: %v", err)
	}
	ch, err := m.Apply(ctx, Delta{Base: changes, Program: prog})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WriteUpdate(ctx, ch); err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestMaintainStoreDifferential is the differential test through a Badger
// store, as drumql infer runs it: base facts loaded and retracted, the
// program edited, each update resumed from the stored facts and proofs,
// applied and written back; each state compared with Infer from scratch on
// a fresh store.
func TestMaintainStoreDifferential(t *testing.T) {
	ctx := context.Background()
	seeds := 40
	if testing.Short() {
		seeds = 12
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 13))
		withNeg := seed%2 == 1
		st, base, src := materialisedCase(t, rng, withNeg)
		if st == nil {
			continue
		}
		for step := range 6 {
			newBase := slices.Clone(base)
			newSrc := src
			switch rng.IntN(3) {
			case 0: // load
				var b store.Batch
				for range 1 + rng.IntN(3) {
					tr := store.NamedTriple{S: fmt.Sprint("n", rng.IntN(9)), R: fmt.Sprint("e", rng.IntN(2)), O: fmt.Sprint("n", rng.IntN(9))}
					if !slices.Contains(newBase, tr) {
						newBase = append(newBase, tr)
						b.Graph = append(b.Graph, tr)
					}
				}
				if _, err := st.Load(ctx, &b, nil); err != nil {
					t.Fatal(err)
				}
			case 1: // retract
				var b store.Batch
				for range 1 + rng.IntN(2) {
					if len(newBase) == 0 {
						break
					}
					i := rng.IntN(len(newBase))
					b.Graph = append(b.Graph, newBase[i])
					newBase = slices.Delete(newBase, i, i+1)
				}
				if _, err := st.Retract(ctx, &b); err != nil {
					t.Fatal(err)
				}
			default:
				newSrc = mutateProgram(rng, src, withNeg)
				if datalog.Validate(testkit.MustParse(t, newSrc)).HasErrors() {
					continue
				}
			}
			base, src = newBase, newSrc
			prog := testkit.MustParse(t, src)
			ch := updateStore(t, st, prog)
			fresh := testkit.NewStore(t, oracle.TripleTSV(base))
			if _, err := eval.Infer(ctx, fresh, prog, eval.Options{}); err != nil {
				t.Fatal(err)
			}
			if err := sameStored(storedDerived(t, st), storedDerived(t, fresh)); err != nil {
				t.Fatalf("seed %d step %d (%s): the store against Infer from scratch:\n%v\nprogram:\n%s\nbase:\n%s", seed, step, ch, err, src, oracle.TripleTSV(base))
			}
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMaintainFallback: an update that reaches more than a quarter of the
// materialisation recomputes it instead (Change.Full), with the same
// result and the same count of changed facts as an update would report.
func TestMaintainFallback(t *testing.T) {
	ctx := context.Background()
	var tsv strings.Builder
	for i := range 120 {
		fmt.Fprintf(&tsv, "v%d\te\tv%d\n", i, i+1)
	}
	st := testkit.NewStore(t, tsv.String())
	p := testkit.MustParse(t, "tc(X, Y) :- e(X, Y).\n0.99 :: tc(X, Z) :- tc(X, Y), e(Y, Z).\n")
	m, _, err := Materialise(ctx, st, p, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := derivedOf(t, m)
	cut := func(i int) store.Fact {
		tr := store.NamedTriple{S: fmt.Sprint("v", i), R: "e", O: fmt.Sprint("v", i+1)}
		f := namedFact(t, st, tr)
		if _, err := st.Retract(ctx, &store.Batch{Graph: []store.NamedTriple{tr}}); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// The last edge: 120 paths end with it, a small update.
	ch, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: cut(119)}}})
	if err != nil || ch.Full || ch.Removed != 120 {
		t.Fatalf("removing the last edge: %+v, %v; want 120 facts removed by an update", ch, err)
	}
	// The middle edge: 60 × 60 paths go through it, more than a quarter.
	ch, err = m.Apply(ctx, Delta{Base: []FactChange{{Fact: cut(59)}}})
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Full || ch.Removed != 60*60 || ch.Added != 0 || ch.Reweighted != 0 {
		t.Fatalf("removing the middle edge: %+v; want a recomputation that removed %d facts", ch, 60*60)
	}
	want := map[string]float64{}
	for f, c := range before {
		var a, b int
		fmt.Sscanf(f, "tc(v%d,v%d)", &a, &b)
		if b <= 59 || a >= 60 && b <= 119 {
			want[f] = c
		}
	}
	if err := sameDerived(derivedOf(t, m), want); err != nil {
		t.Fatal(err)
	}
	if err := checkProofs(m); err != nil {
		t.Fatal(err)
	}
}

// TestLookupAsStored: a materialisation written to its store answers
// queries from memory (Lookup) exactly as Query answers them from the
// store alone, on random programs, graphs and queries, after updates too.
func TestLookupAsStored(t *testing.T) {
	ctx := context.Background()
	looked := 0
	for seed := range 60 {
		rng := rand.New(rand.NewPCG(uint64(seed), 17))
		base, _, src := oracle.RandomCase(rng, seed%2 == 1)
		p := testkit.MustParse(t, src)
		if datalog.Validate(p).HasErrors() {
			continue
		}
		st := testkit.NewStore(t, oracle.TripleTSV(base))
		m, _, err := Materialise(ctx, st, p, eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for step := range 3 {
			if step > 0 {
				np := testkit.MustParse(t, mutateProgram(rng, src, seed%2 == 1))
				if datalog.Validate(np).HasErrors() {
					continue
				}
				ch, err := m.Apply(ctx, Delta{Program: np})
				if err != nil {
					t.Fatal(err)
				}
				if err := m.WriteUpdate(ctx, ch); err != nil {
					t.Fatal(err)
				}
			} else if _, err := m.Write(ctx); err != nil {
				t.Fatal(err)
			}
			for _, qs := range oracle.RandomQueries(rng, 9) {
				q := testkit.MustQuery(t, qs)
				got, ok, err := m.Lookup(ctx, q, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					continue
				}
				looked++
				want, err := query.Query(ctx, st, nil, q, eval.Options{})
				if err != nil {
					continue // a predicate the store does not know
				}
				if err := oracle.SameAnswers(got, want); err != nil {
					t.Fatalf("seed %d step %d: Lookup %s: %v", seed, step, qs, err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("seed %d step %d: Lookup %s:\n%v\nwant\n%v", seed, step, qs, got, want)
				}
				top, _, err := m.Lookup(ctx, q, 0, 2)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(top) != fmt.Sprint(want[:min(2, len(want))]) {
					t.Fatalf("seed %d step %d: Lookup %s, top 2:\n%v\nwant\n%v", seed, step, qs, top, want[:min(2, len(want))])
				}
			}
		}
	}
	if looked < 200 {
		t.Errorf("only %d queries answered by Lookup", looked)
	}
}

// materialisedCase draws a random case (oracle.RandomCase), loads its base
// facts into a new Badger store and materialises its program there with
// Infer; st is nil when the program is invalid (the caller skips it).
func materialisedCase(t *testing.T, rng *rand.Rand, withNeg bool) (st *store.DB, base []store.NamedTriple, src string) {
	t.Helper()
	base, _, src = oracle.RandomCase(rng, withNeg)
	p := testkit.MustParse(t, src)
	if datalog.Validate(p).HasErrors() {
		return nil, nil, ""
	}
	st, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	testkit.LoadTSV(t, st, oracle.TripleTSV(base))
	if _, err := eval.Infer(context.Background(), st, p, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	return st, base, src
}
