package query

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// newStore returns a memory store holding the triples of tsv
// (subject<TAB>relation<TAB>object lines).
func newStore(t testing.TB, tsv string) *store.Mem {
	t.Helper()
	st := store.NewMemory()
	loadTSV(t, st, tsv)
	return st
}

// loadTSV loads the triples of tsv (subject<TAB>relation<TAB>object lines)
// into st.
func loadTSV(t testing.TB, st store.Store, tsv string) {
	t.Helper()
	var b store.Batch
	for line := range strings.SplitSeq(tsv, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("bad triple line %q", line)
		}
		b.Graph = append(b.Graph, store.NamedTriple{S: f[0], R: f[1], O: f[2]})
	}
	if _, err := st.Load(context.Background(), &b, nil); err != nil {
		t.Fatal(err)
	}
}

func mustParse(t testing.TB, src string) *datalog.Program {
	t.Helper()
	p, err := parser.ParseString("test.dl", src)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return p
}

func mustQuery(t testing.TB, src string) datalog.Atom {
	t.Helper()
	q, err := parser.ParseQuery(src)
	if err != nil {
		t.Fatalf("parse query %q: %v", src, err)
	}
	return q.Atom
}

// formatAnswers prints answers one a line: values then the confidence.
func formatAnswers(as []eval.Answer) string {
	var b strings.Builder
	for _, a := range as {
		vs := slices.Clone(a.Values)
		if len(vs) == 0 {
			vs = []string{"true"}
		}
		fmt.Fprintf(&b, "%s %.6g\n", strings.Join(vs, " "), a.Confidence)
	}
	return b.String()
}

// derivedDump prints every derived fact of st, "atom confidence", sorted.
func derivedDump(t testing.TB, st store.Store) string {
	t.Helper()
	rs, err := st.Relations()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range rs {
		for d, err := range st.ScanDerived(r.Rel) {
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("%s %.6g", factString(t, st, d.Fact), d.Confidence))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func factString(t testing.TB, st store.Store, f store.Fact) string {
	t.Helper()
	pred, err := st.Name(f.Rel)
	if err != nil {
		t.Fatal(err)
	}
	a := datalog.Atom{Pred: pred}
	for _, id := range f.Args {
		n, err := st.Name(id)
		if err != nil {
			t.Fatal(err)
		}
		a.Args = append(a.Args, eval.SymTerm(n))
	}
	return a.String()
}

// configuration is one set of evaluation switches.
type configuration struct {
	name string
	opt  eval.Options
}

// configurations returns every combination of the optimisation switches
// and thread counts that results must not depend on: the magic-set rewrite
// alone, raced against the bottom-up evaluation, and off; the chain fast
// path and the factorised evaluation of chain rules (factor.go) both on
// and both off; 1, 2 and 8 threads. The oracle and the txtar cases run
// under each.
func configurations() []configuration {
	var cs []configuration
	for _, magic := range []string{"alone", "race", "off"} {
		for _, chain := range []bool{true, false} {
			for _, threads := range []int{1, 2, 8} {
				cs = append(cs, configuration{
					name: fmt.Sprintf("magic=%s,chain=%v,threads=%d", magic, chain, threads),
					opt:  eval.Options{Threads: threads, NoMagic: magic == "off", NoRace: magic == "alone", NoChain: !chain, NoFactor: !chain},
				})
			}
		}
	}
	return cs
}
