package parser

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

// fbRelations returns n FB15k-237-like relation names.
func fbRelations(n int) []string {
	domains := []string{"people", "film", "music", "location", "organization", "sports", "education", "award", "tv", "business"}
	types := []string{"person", "film", "artist", "country", "team", "institution", "award_nominee", "program", "company", "event"}
	props := []string{"nationality", "places_lived./people/place_lived/location", "genre", "contains", "member_of", "language", "award_winner", "profession", "film_release_region", "location", "colors", "sibling_s", "spouse_s", "position", "country"}
	var rels []string
	for i := 0; len(rels) < n; i++ {
		d, t, p := domains[i%len(domains)], types[(i/len(domains))%len(types)], props[(i/7)%len(props)]
		rels = append(rels, fmt.Sprintf("/%s/%s/%s_%d", d, t, p, i))
	}
	return rels
}

// minedProgram returns n DRUM-style rules over FB15k-237-like relations:
// chain rules h(X, Y) :- r1(X, Z1), ..., rk(Zk-1, Y) with k in 1..3, some
// arguments swapped (inverse relations), weights in (0, 1] and a comment.
func minedProgram(n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	rels := fbRelations(237)
	var sb strings.Builder
	sb.Grow(n * 160)
	for i := range n {
		fmt.Fprintf(&sb, "%% score=%.4f rank=%d\n", rng.Float64(), i%3)
		w := float64(rng.IntN(9999)+1) / 10000
		sb.WriteString(strconv.FormatFloat(w, 'g', -1, 64))
		sb.WriteString(" :: ")
		sb.WriteString(strconv.Quote(rels[rng.IntN(len(rels))]))
		sb.WriteString("(X, Y) :- ")
		k := 1 + rng.IntN(3)
		prev := "X"
		for j := range k {
			next := "Y"
			if j < k-1 {
				next = "Z" + strconv.Itoa(j+1)
			}
			if j > 0 {
				sb.WriteString(", ")
			}
			a, b := prev, next
			if rng.IntN(2) == 0 {
				a, b = b, a
			}
			fmt.Fprintf(&sb, "%s(%s, %s)", strconv.Quote(rels[rng.IntN(len(rels))]), a, b)
			prev = next
		}
		sb.WriteString(".\n")
	}
	return sb.String()
}

func BenchmarkParse100k(b *testing.B) {
	src := minedProgram(100_000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := ParseString("mined.dl", src)
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Rules) != 100_000 {
			b.Fatalf("got %d rules", len(p.Rules))
		}
	}
}

func BenchmarkParseValidate100k(b *testing.B) {
	src := minedProgram(100_000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := ParseString("mined.dl", src)
		if err != nil {
			b.Fatal(err)
		}
		if ds := datalog.Validate(p); ds.HasErrors() {
			b.Fatal(ds[0])
		}
	}
}

// BenchmarkParseParticiple100k is the same parse with the participle
// grammar alone (no hand-written fast path), for comparison.
func BenchmarkParseParticiple100k(b *testing.B) {
	src := minedProgram(100_000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		p := &datalog.Program{}
		if ds, _ := parseSource(context.Background(), p, "mined.dl", src, true); len(ds) > 0 {
			b.Fatal(ds)
		}
	}
}

// BenchmarkMerge100k merges 100,000 mined rules into an expert program
// that has negation on a mined relation.
func BenchmarkMerge100k(b *testing.B) {
	mined, err := ParseString("mined.dl", minedProgram(100_000))
	if err != nil {
		b.Fatal(err)
	}
	rels := fbRelations(237)
	expert, err := ParseString("expert.dl", fmt.Sprintf("single(X) :- person(X), not %q(X, _).\n%q(X, Y) :- single(X), person(Y).\n", rels[5], rels[7]))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var ds datalog.Diagnostics
	for b.Loop() {
		_, ds = datalog.Merge(expert, mined)
	}
	b.ReportMetric(float64(len(ds)), "diagnostics")
}
