package maintain

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// BenchmarkMaintainWalkthrough measures in memory the README walkthrough's
// small updates on examples/families: DRUMQL_FAMILIES_RULES names the file
// `drumql mine` wrote on it (the walkthrough's families.dl), merged with
// examples/families/expert.dl. One op is four updates through Apply: the
// walkthrough's rule edit (its rule wife(A, B) :- aunt(A, C), uncle(B, C),
// A != B removed), the rule put back, the base fact husband(marc_ueda,
// alice_ortiz) retracted, and loaded back. Each reports its time per op
// (edit-ms, restore-ms, retract-ms, load-ms) and the rounds and joins of
// its last op. Skipped without the file.
func BenchmarkMaintainWalkthrough(b *testing.B) {
	rules := os.Getenv("DRUMQL_FAMILIES_RULES")
	if rules == "" {
		b.Skip("set DRUMQL_FAMILIES_RULES to the file drumql mine wrote on examples/families (the README walkthrough)")
	}
	ctx := context.Background()
	batch, err := store.ReadDataset("../../examples/families")
	if err != nil {
		b.Fatal(err)
	}
	st := store.NewMemory()
	if _, err := st.Load(ctx, batch, nil); err != nil {
		b.Fatal(err)
	}
	mined, err := os.ReadFile(rules)
	if err != nil {
		b.Fatal(err)
	}
	expert, err := os.ReadFile("../../examples/families/expert.dl")
	if err != nil {
		b.Fatal(err)
	}
	var lines []string
	for l := range strings.Lines(string(mined)) {
		if !strings.Contains(l, ":: wife(A, B) :- aunt(A, C), uncle(B, C), A != B.") {
			lines = append(lines, l)
		}
	}
	src, edited := string(mined)+"\n"+string(expert), strings.Join(lines, "")+"\n"+string(expert)
	if src == edited {
		b.Fatal("the walkthrough's rule is not in the file")
	}
	p, q := testkit.MustParse(b, src), testkit.MustParse(b, edited)
	m, _, err := Materialise(ctx, st, p, eval.Options{})
	if err != nil {
		b.Fatal(err)
	}
	f := namedFact(b, st, store.NamedTriple{S: "marc_ueda", R: "husband", O: "alice_ortiz"})
	ups := []struct {
		name string
		d    Delta
	}{
		{"edit", Delta{Program: q}},
		{"restore", Delta{Program: p}},
		{"retract", Delta{Base: []FactChange{{Fact: f}}}},
		{"load", Delta{Base: []FactChange{{Fact: f, Added: true}}}},
	}
	took := make([]time.Duration, len(ups))
	joins := make([]int64, len(ups))
	rounds := make([]int, len(ups))
	for b.Loop() {
		for i, u := range ups {
			w, start := m.e.Work, time.Now()
			ch, err := m.Apply(ctx, u.d)
			if err != nil {
				b.Fatal(err)
			}
			took[i] += time.Since(start)
			joins[i], rounds[i] = m.e.Work-w, ch.Rounds
		}
	}
	for i, u := range ups {
		b.ReportMetric(float64(took[i].Microseconds())/1000/float64(b.N), u.name+"-ms")
		b.ReportMetric(float64(joins[i]), u.name+"-joins")
		b.ReportMetric(float64(rounds[i]), u.name+"-rounds")
	}
}
