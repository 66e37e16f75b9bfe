package maintain_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/maintain"
	"github.com/drumql/drumql/store"
)

// reportRules are the rules random programs are drawn from: recursion,
// negation, two rules and program facts for the same relation, so that a
// program fact is overridden by a stronger derivation and back.
var reportRules = []string{
	"p(X, Y) :- e(X, Y).",
	"p(X, Z) :- p(X, Y), e(Y, Z).",
	"p(X, Y) :- f(Y, X).",
	"q(X, Y) :- p(X, Y), f(X, Y).",
	"q(X, Y) :- f(X, Y).",
	"q(X, Z) :- q(X, Y), p(Y, Z).",
	"r(X) :- q(X, Y), !p(Y, X).",
	"r(X) :- p(X, X).",
}

// reportWeights are the weights of rules and program facts ("" is 1).
var reportWeights = []string{"", "0.95 :: ", "0.9 :: ", "0.6 :: ", "0.5 :: ", "0.3 :: ", "0.1 :: "}

// reportNodes is the number of nodes of the random graphs.
const reportNodes = 5

// reportFact returns a random program fact line.
func reportFact(rng *rand.Rand) string {
	w := reportWeights[rng.IntN(len(reportWeights))]
	if rng.IntN(4) == 0 {
		return fmt.Sprintf("%sr(n%d).", w, rng.IntN(reportNodes))
	}
	return fmt.Sprintf("%s%s(n%d, n%d).", w, []string{"p", "q"}[rng.IntN(2)], rng.IntN(reportNodes), rng.IntN(reportNodes))
}

// reportTriple returns a random base fact.
func reportTriple(rng *rand.Rand) store.NamedTriple {
	return store.NamedTriple{S: fmt.Sprint("n", rng.IntN(reportNodes)), R: []string{"e", "f"}[rng.IntN(2)], O: fmt.Sprint("n", rng.IntN(reportNodes))}
}

// reportEdit returns the program lines with one random edit: a weight
// changed (most often, of a program fact), a line removed or added, or
// the threshold set or dropped.
func reportEdit(rng *rand.Rand, lines []string) []string {
	lines = slices.Clone(lines)
	unweighted := func(l string) string {
		if k := strings.Index(l, " :: "); k >= 0 {
			return l[k+4:]
		}
		return l
	}
	switch rng.IntN(6) {
	case 0, 1, 2: // reweigh a line
		if len(lines) > 0 {
			i := rng.IntN(len(lines))
			if !strings.HasPrefix(lines[i], "@") {
				lines[i] = reportWeights[rng.IntN(len(reportWeights))] + unweighted(lines[i])
			}
		}
	case 3: // remove a line
		if len(lines) > 0 {
			i := rng.IntN(len(lines))
			lines = slices.Delete(lines, i, i+1)
		}
	case 4: // add a rule or a fact
		l := reportFact(rng)
		if rng.IntN(2) == 0 {
			l = reportWeights[rng.IntN(len(reportWeights))] + reportRules[rng.IntN(len(reportRules))]
		}
		lines = append(lines, l)
	default:
		lines = slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, "@min") })
		if rng.IntN(2) == 0 {
			lines = append(lines, []string{"@min 0.2.", "@min 0.05.", "@min 0.5."}[rng.IntN(3)])
		}
	}
	return lines
}

// reportParse parses program lines; ok is false when they do not make a valid
// program (a rule or fact given twice with different weights, say).
func reportParse(t *testing.T, lines []string) (*datalog.Program, bool) {
	t.Helper()
	p, err := parser.ParseString("reports.dl", strings.Join(lines, "\n")+"\n")
	if err != nil {
		return nil, false
	}
	if datalog.Validate(p).HasErrors() {
		return nil, false
	}
	return p, true
}

// reportStore returns a memory store holding base.
func reportStore(t *testing.T, base []store.NamedTriple) store.Store {
	t.Helper()
	st := store.NewMemory()
	if _, err := st.Load(context.Background(), &store.Batch{Graph: base}, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

// reportFact returns a triple as a store fact.
func reportStoreFact(t *testing.T, st store.Store, tr store.NamedTriple) store.Fact {
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

// checkChange checks what an update reported against the derived facts
// before (prev) and after it (got): the counts of facts added, removed and
// reweighted, and every listed fact's old and new confidence.
func checkChange(ch maintain.Change, prev, got map[string]float64) error {
	var added, removed, reweighted int
	var diff []string
	for k, c := range got {
		switch o, ok := prev[k]; {
		case !ok:
			added++
			diff = append(diff, k)
		case o != c:
			reweighted++
			diff = append(diff, k)
		}
	}
	for k := range prev {
		if _, ok := got[k]; !ok {
			removed++
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	if ch.Added != added || ch.Removed != removed || ch.Reweighted != reweighted {
		return fmt.Errorf("change %s, the facts say +%d −%d ~%d: %v", ch, added, removed, reweighted, diff)
	}
	if want := min(len(diff), maintain.MaxChangedFacts); len(ch.Facts) != want {
		return fmt.Errorf("change lists %d facts, want %d: %v", len(ch.Facts), want, diff)
	}
	seen := map[string]bool{}
	for _, f := range ch.Facts {
		k := f.Pred + "(" + strings.Join(f.Args, ",") + ")"
		if seen[k] {
			return fmt.Errorf("change lists %s twice", k)
		}
		seen[k] = true
		if o, n := prev[k], got[k]; f.Old != o || f.New != n {
			return fmt.Errorf("change lists %s from %v to %v, want from %v to %v", k, f.Old, f.New, o, n)
		}
		if f.Old == f.New {
			return fmt.Errorf("change lists %s, unchanged at %v", k, f.Old)
		}
	}
	return nil
}

// sameFacts compares two sets of derived facts, confidences within 1e-12
// relative.
func sameFacts(got, want map[string]float64) error {
	var bad []string
	for k, w := range want {
		g, ok := got[k]
		if !ok || g-w > 1e-12*w || w-g > 1e-12*w {
			bad = append(bad, fmt.Sprintf("%s: %v, want %v", k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			bad = append(bad, fmt.Sprintf("%s: %v, want none", k, g))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("%d facts differ:\n%s", len(bad), strings.Join(bad, "\n"))
	}
	return nil
}

// TestMaintainReports applies random updates (base facts added and
// removed, rules and program facts added, removed and reweighted, the
// threshold changed) to materialisations of random programs whose program
// facts compete with derivations, and checks after each: the facts against
// a recomputation from scratch, what the update reported (Change counts
// and Facts, old and new confidences) against the facts before and after,
// and Record, read before the update, against RecordOf and against the
// recomputation's.
func TestMaintainReports(t *testing.T) {
	ctx := context.Background()
	opt := reasoner.Options{}
	var incremental, full, listed int
	for seed := range uint64(120) {
		rng := rand.New(rand.NewPCG(seed, 47))
		var base []store.NamedTriple
		for range 4 + rng.IntN(8) {
			if tr := reportTriple(rng); !slices.Contains(base, tr) {
				base = append(base, tr)
			}
		}
		var lines []string
		for range 2 + rng.IntN(4) {
			lines = append(lines, reportWeights[rng.IntN(len(reportWeights))]+reportRules[rng.IntN(len(reportRules))])
		}
		for range 1 + rng.IntN(4) {
			lines = append(lines, reportFact(rng))
		}
		prog, ok := reportParse(t, lines)
		if !ok {
			continue
		}
		st := reportStore(t, base)
		m, _, err := maintain.Materialise(ctx, st, prog, opt)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		prev := maintain.DerivedOf(t, m)
		for step := range 10 {
			var d maintain.Delta
			newLines := lines
			switch rng.IntN(3) {
			case 0: // base facts added and removed
				var add, rm []store.NamedTriple
				for range 1 + rng.IntN(3) {
					tr := reportTriple(rng)
					switch {
					case slices.Contains(base, tr) && !slices.Contains(rm, tr):
						rm = append(rm, tr)
					case !slices.Contains(base, tr) && !slices.Contains(add, tr):
						add = append(add, tr)
					}
				}
				for _, tr := range rm {
					d.Base = append(d.Base, maintain.FactChange{Fact: reportStoreFact(t, st, tr)})
				}
				if _, err := st.Retract(ctx, &store.Batch{Graph: rm}); err != nil {
					t.Fatal(err)
				}
				if _, err := st.Load(ctx, &store.Batch{Graph: add}, nil); err != nil {
					t.Fatal(err)
				}
				for _, tr := range add {
					d.Base = append(d.Base, maintain.FactChange{Fact: reportStoreFact(t, st, tr), Added: true})
				}
				base = slices.DeleteFunc(base, func(tr store.NamedTriple) bool { return slices.Contains(rm, tr) })
				base = append(base, add...)
			default:
				newLines = reportEdit(rng, lines)
				np, ok := reportParse(t, newLines)
				if !ok {
					continue
				}
				d.Program, prog = np, np
			}
			lines = newLines
			_ = m.Record() // read before the update: the update must not leave it stale
			ch, err := m.Apply(ctx, d)
			if err != nil {
				t.Fatalf("seed %d step %d: Apply: %v", seed, step, err)
			}
			if ch.Full {
				full++
			} else {
				incremental++
			}
			listed += len(ch.Facts)
			fail := func(what string, err error) {
				t.Helper()
				t.Fatalf("seed %d step %d (%s): %s:\n%v\nprogram:\n%s\nbase: %v", seed, step, ch, what, err, strings.Join(lines, "\n"), base)
			}
			got := maintain.DerivedOf(t, m)
			fresh, _, err := maintain.Materialise(ctx, reportStore(t, base), prog, opt)
			if err != nil {
				fail("from scratch", err)
			}
			if err := sameFacts(got, maintain.DerivedOf(t, fresh)); err != nil {
				fail("against a recomputation", err)
			}
			if err := checkChange(ch, prev, got); err != nil {
				fail("the reported change", err)
			}
			if rec, want := m.Record(), maintain.RecordOf(prog, opt); !bytes.Equal(rec, want) {
				fail("Record", fmt.Errorf("Record\n%s\nRecordOf\n%s", rec, want))
			}
			if rec, want := m.Record(), fresh.Record(); !bytes.Equal(rec, want) {
				fail("Record", fmt.Errorf("Record\n%s\nthe recomputation's\n%s", rec, want))
			}
			prev = got
		}
	}
	t.Logf("%d incremental updates, %d recomputations, %d facts listed", incremental, full, listed)
	if incremental < 5*full || listed < 500 {
		t.Errorf("%d incremental updates against %d recomputations, %d facts listed: the test hardly tests maintenance", incremental, full, listed)
	}
}

// overriddenCases are updates of a program fact that competes with a
// derivation of the same fact, with the one change each must report.
var overriddenCases = []struct {
	name     string
	base     string // "s r o" triples, one a line
	from, to string // the program before and after
	fact     string
	old, new float64
}{
	{"lowered fact re-derived", "a e b", "0.9 :: p(a, b).\n0.5 :: p(X, Y) :- e(X, Y).", "0.2 :: p(a, b).\n0.5 :: p(X, Y) :- e(X, Y).", "p(a,b)", 0.9, 0.5},
	{"removed fact re-derived", "a e b", "0.9 :: p(a, b).\n0.5 :: p(X, Y) :- e(X, Y).", "0.5 :: p(X, Y) :- e(X, Y).", "p(a,b)", 0.9, 0.5},
	{"raised fact overrides", "a e b", "0.3 :: p(a, b).\n0.5 :: p(X, Y) :- e(X, Y).", "0.8 :: p(a, b).\n0.5 :: p(X, Y) :- e(X, Y).", "p(a,b)", 0.5, 0.8},
	{"weakened rule leaves the fact", "a e b", "0.3 :: p(a, b).\n0.5 :: p(X, Y) :- e(X, Y).", "0.3 :: p(a, b).\n0.1 :: p(X, Y) :- e(X, Y).", "p(a,b)", 0.5, 0.3},
	{"lowered fact re-derived through a chain", "a e b\nb e c", "0.9 :: p(a, c).\n0.8 :: p(X, Y) :- e(X, Y).\n0.5 :: p(X, Z) :- p(X, Y), e(Y, Z).", "0.1 :: p(a, c).\n0.8 :: p(X, Y) :- e(X, Y).\n0.5 :: p(X, Z) :- p(X, Y), e(Y, Z).", "p(a,c)", 0.9, 0.4},
}

// TestOverriddenFacts materialises each program of overriddenCases,
// updates it, and checks the fact's confidence and the one change
// reported.
func TestOverriddenFacts(t *testing.T) {
	ctx := context.Background()
	for _, c := range overriddenCases {
		t.Run(c.name, func(t *testing.T) {
			var base []store.NamedTriple
			for _, l := range strings.Split(c.base, "\n") {
				f := strings.Fields(l)
				base = append(base, store.NamedTriple{S: f[0], R: f[1], O: f[2]})
			}
			from, ok := reportParse(t, strings.Split(c.from, "\n"))
			to, ok2 := reportParse(t, strings.Split(c.to, "\n"))
			if !ok || !ok2 {
				t.Fatal("the programs do not parse")
			}
			m, _, err := maintain.Materialise(ctx, reportStore(t, base), from, reasoner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			prev := maintain.DerivedOf(t, m)
			ch, err := m.Apply(ctx, maintain.Delta{Program: to})
			if err != nil {
				t.Fatal(err)
			}
			got := maintain.DerivedOf(t, m)
			if got[c.fact] != c.new || prev[c.fact] != c.old {
				t.Errorf("%s: %v then %v, want %v then %v", c.fact, prev[c.fact], got[c.fact], c.old, c.new)
			}
			if err := checkChange(ch, prev, got); err != nil {
				t.Error(err)
			}
			if len(ch.Facts) == 0 || ch.Facts[0].Pred+"("+strings.Join(ch.Facts[0].Args, ",")+")" != c.fact {
				t.Errorf("change %s lists %+v, want %s first", ch, ch.Facts, c.fact)
			}
		})
	}
}
