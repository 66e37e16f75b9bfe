// Test helpers shared with the evaluator's tests (reasoner/internal/query),
// copied: a package's test files cannot be imported by another's.

package maintain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/store"
)

// From the reasoner's bench_test.go.

// fb15k loads fb15k-237 from $DRUMQL_DATASETS (default ../shared/datasets
// from the repository root), or skips.
func fb15k(b *testing.B) store.Store {
	dir := os.Getenv("DRUMQL_DATASETS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "datasets")
	}
	dir = filepath.Join(dir, "fb15k-237")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("fb15k-237 not found at %s (set DRUMQL_DATASETS): %v", dir, err)
	}
	batch, err := store.ReadDataset(dir)
	if err != nil {
		b.Fatal(err)
	}
	st := store.NewMemory()
	if _, err := st.Load(context.Background(), batch, nil); err != nil {
		b.Fatal(err)
	}
	return st
}

// From the reasoner's helpers_test.go.

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

// answerSet is formatAnswers sorted by line: answers whose confidences
// are equal to six digits may come in either order (two evaluations that
// join a rule's body in different orders multiply its confidences in
// different orders, which can differ in the last bit).
func answerSet(as []eval.Answer) string {
	lines := strings.SplitAfter(formatAnswers(as), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
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
