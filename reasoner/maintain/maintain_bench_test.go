package maintain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// BenchmarkMaintainClosure measures incremental maintenance in memory (no
// store write) on FB15k-237's 4.0M-fact closure of award_nominee (see
// bench/infer-memory.sh), through Apply, against Materialise of the same
// program in the same process (full-ms, full-MB: its time and the memory it
// allocated), so the ratio is read off one run. Sub-benchmark edge: one op
// removes a random edge of the relation and adds it back (the store keeps
// the edge: an update reads the store only for relations it has not
// loaded). add-1000: one op adds 1,000 random edges between the graph's
// entities (seeded, new each op) and removes them again; add-ms and
// remove-ms split its time. first-edge (run it with -benchtime 1x, before
// the others change the proofs): the first removal of the edge
// DRUMQL_CLOSURE_EDGE names (firstEdge).
func BenchmarkMaintainClosure(b *testing.B) {
	ctx := context.Background()
	st := testkit.FB15k(b)
	const rel = "/award/award_nominee/award_nominations./award/award_nomination/award_nominee"
	p := testkit.MustParse(b, `reach(X, Y) :- "`+rel+`"(X, Y).`+"\n"+`reach(X, Z) :- reach(X, Y), "`+rel+`"(Y, Z).`+"\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	m, stats, err := Materialise(ctx, st, p, eval.Options{})
	if err != nil {
		b.Fatal(err)
	}
	full := time.Since(start)
	runtime.ReadMemStats(&after)
	id, _, _ := st.Lookup(rel)
	var edges []store.Fact
	for f, err := range st.Scan(id) {
		if err != nil {
			b.Fatal(err)
		}
		edges = append(edges, f)
	}
	// The reverse index of the proofs is built by the first update.
	if _, err := m.Apply(ctx, Delta{}); err != nil {
		b.Fatal(err)
	}
	report := func(b *testing.B) {
		b.ReportMetric(float64(full.Milliseconds()), "full-ms")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "full-MB")
		b.ReportMetric(float64(stats.Facts), "facts")
	}
	b.Run("first-edge", func(b *testing.B) {
		firstEdge(ctx, b, st, m)
		report(b)
	})
	b.Run("edge", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 2))
		b.ReportAllocs()
		for b.Loop() {
			f := edges[rng.IntN(len(edges))]
			if _, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: f}}}); err != nil {
				b.Fatal(err)
			}
			if _, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: f, Added: true}}}); err != nil {
				b.Fatal(err)
			}
		}
		report(b)
	})
	b.Run("add-1000", func(b *testing.B) {
		addRemove(ctx, b, st, m, id, 1000)
		report(b)
	})
}

// firstEdge is the first-edge sub-benchmark of BenchmarkMaintainClosure:
// the edge of the line DRUMQL_CLOSURE_EDGE names (bench/maintain.sh's
// bench/out/maintain/edge.tsv) removed from the materialisation as the
// full evaluation left it, the first update to remove anything (an op
// after the first adds it back and removes it again); it reports the
// first removal's time (first-ms), rounds and joins. Skipped without the
// file.
func firstEdge(ctx context.Context, b *testing.B, st store.Store, m *Materialisation) {
	path := os.Getenv("DRUMQL_CLOSURE_EDGE")
	if path == "" {
		b.Skip("set DRUMQL_CLOSURE_EDGE to a file of one edge (bench/maintain.sh writes bench/out/maintain/edge.tsv)")
	}
	text, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	parts := strings.Split(strings.TrimSpace(string(text)), "\t")
	if len(parts) != 3 {
		b.Fatalf("%s: want one line subject, relation, object", path)
	}
	f := namedFact(b, st, store.NamedTriple{S: parts[0], R: parts[1], O: parts[2]})
	var first time.Duration
	var rounds int
	var joins int64
	n := 0
	for b.Loop() {
		if n > 0 {
			if _, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: f, Added: true}}}); err != nil {
				b.Fatal(err)
			}
		}
		w, start := m.e.Work, time.Now()
		ch, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: f}}})
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			first, rounds, joins = time.Since(start), ch.Rounds, m.e.Work-w
		}
		n++
	}
	if _, err := m.Apply(ctx, Delta{Base: []FactChange{{Fact: f, Added: true}}}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
	b.ReportMetric(float64(rounds), "first-rounds")
	b.ReportMetric(float64(joins), "first-joins")
}

// addRemove is the add-1000 sub-benchmark of the maintenance benchmarks:
// each op adds n random facts of relation rel between the store's entities
// (seeded; none of them a fact the store holds) through m.Apply, then
// removes them. It reports the updates' times apart (add-ms, remove-ms per
// op), the derived facts the additions changed (changed) and how many of
// the two updates fell back to recomputing (recomputed), per op.
func addRemove(ctx context.Context, b *testing.B, st store.Store, m *Materialisation, rel store.ID, n int) {
	snap, err := st.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ents := snap.Entities
	rng := rand.New(rand.NewPCG(7, 11))
	var add, remove time.Duration
	changed, ops, recomputed := 0, 0, 0
	b.ReportAllocs()
	for b.Loop() {
		var cs []FactChange
		seen := map[[2]store.ID]bool{}
		for len(cs) < n {
			f := store.Fact{Rel: rel, Args: []store.ID{ents[rng.IntN(len(ents))], ents[rng.IntN(len(ents))]}}
			k := [2]store.ID{f.Args[0], f.Args[1]}
			if seen[k] {
				continue
			}
			if ok, err := st.Has(f); err != nil {
				b.Fatal(err)
			} else if ok {
				continue
			}
			seen[k] = true
			cs = append(cs, FactChange{Fact: f, Added: true})
		}
		start := time.Now()
		ch, err := m.Apply(ctx, Delta{Base: cs})
		if err != nil {
			b.Fatal(err)
		}
		add += time.Since(start)
		changed += ch.Added + ch.Removed + ch.Reweighted
		for i := range cs {
			cs[i].Added = false
		}
		start = time.Now()
		ch2, err := m.Apply(ctx, Delta{Base: cs})
		if err != nil {
			b.Fatal(err)
		}
		remove += time.Since(start)
		ops++
		recomputed += b2i(ch.Full) + b2i(ch2.Full)
	}
	b.ReportMetric(float64(add.Milliseconds())/float64(ops), "add-ms")
	b.ReportMetric(float64(remove.Milliseconds())/float64(ops), "remove-ms")
	b.ReportMetric(float64(changed)/float64(ops), "changed")
	b.ReportMetric(float64(recomputed)/float64(ops), "recomputed")
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// BenchmarkMaintainMined measures incremental maintenance in memory of a
// mined rule file over FB15k-237: DRUMQL_MINED_RULES names a file written
// by drumql mine on it, DRUMQL_MINED_MIN the threshold (default 0.5). One
// op removes the first rule of weight at least the threshold (the best of
// its head relation), adds it back,
// halves its weight and restores it: four updates through Apply, each
// diffing the whole program as drumql infer does. Sub-benchmark add-1000
// adds 1,000 random facts of the graph's largest relation and removes them
// (as BenchmarkMaintainClosure's). Skipped without the file.
func BenchmarkMaintainMined(b *testing.B) {
	rules := os.Getenv("DRUMQL_MINED_RULES")
	if rules == "" {
		b.Skip("set DRUMQL_MINED_RULES to a file drumql mine wrote on fb15k-237 (see bench/maintain.sh)")
	}
	minConf := 0.5
	if s := os.Getenv("DRUMQL_MINED_MIN"); s != "" {
		if _, err := fmt.Sscan(s, &minConf); err != nil {
			b.Fatalf("DRUMQL_MINED_MIN: %v", err)
		}
	}
	ctx := context.Background()
	st := testkit.FB15k(b)
	p, err := parser.ParseFile(rules)
	if err != nil {
		b.Fatal(err)
	}
	p.Thresholds = []datalog.Threshold{{Min: minConf}}
	start := time.Now()
	m, stats, err := Materialise(ctx, st, p, eval.Options{})
	if err != nil {
		b.Fatal(err)
	}
	full := time.Since(start)
	k := slices.IndexFunc(p.Rules, func(r datalog.Rule) bool { return eval.WeightOf(r.Weight) >= minConf })
	if k < 0 {
		b.Fatal("no rule reaches the threshold")
	}
	removed := *p
	removed.Rules = slices.Delete(slices.Clone(p.Rules), k, k+1)
	halved := *p
	halved.Rules = slices.Clone(p.Rules)
	halved.Rules[k].Weight /= 2
	if _, err := m.Apply(ctx, Delta{}); err != nil { // builds the reverse index
		b.Fatal(err)
	}
	// validated: as serve applies a rule edit, the program validated by
	// the caller (Delta.Validated).
	b.Run("add-1000", func(b *testing.B) {
		addRemove(ctx, b, st, m, largestRelation(b, st), 1000)
		b.ReportMetric(float64(full.Milliseconds()), "full-ms")
		b.ReportMetric(float64(stats.Facts), "facts")
	})
	for _, validated := range []bool{false, true} {
		b.Run(fmt.Sprintf("validated=%v", validated), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, q := range []*datalog.Program{&removed, p, &halved, p} {
					if _, err := m.Apply(ctx, Delta{Program: q, Validated: validated}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(full.Milliseconds()), "full-ms")
			b.ReportMetric(float64(stats.Facts), "facts")
		})
	}
}

// largestRelation is the store's relation with the most base facts (the
// first of them by id on a tie).
func largestRelation(b *testing.B, st store.Store) store.ID {
	rs, err := st.Relations()
	if err != nil {
		b.Fatal(err)
	}
	best := rs[0]
	for _, r := range rs[1:] {
		if r.Base > best.Base || r.Base == best.Base && r.Rel < best.Rel {
			best = r
		}
	}
	return best.Rel
}
