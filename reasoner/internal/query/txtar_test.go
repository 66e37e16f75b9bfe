package query

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"golang.org/x/tools/txtar"
)

// TestCases runs testdata/*.txtar: each case has program.dl, an optional
// base.tsv, an optional "derived" file (the expected Infer output, "atom
// confidence" lines sorted) and files named "query <atom>" holding the
// expected answers ("values... confidence" lines, best first; "true c" for a
// ground query). Every query is run three ways: Query (goal-directed when it
// has constants), Query after Infer (answers from stored facts, no rules),
// and Engine.Query; and all of it under every configuration (see
// configurations).
func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test cases: %v", err)
	}
	var chain int64 // queries the chain fast path answered
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var prog, base, derived string
			hasDerived := false
			queries := map[string]string{}
			var order []string
			for _, f := range ar.Files {
				switch {
				case f.Name == "program.dl":
					prog = string(f.Data)
				case f.Name == "base.tsv":
					base = string(f.Data)
				case f.Name == "derived":
					derived, hasDerived = strings.TrimSpace(string(f.Data)), true
				case strings.HasPrefix(f.Name, "query "):
					q := strings.TrimPrefix(f.Name, "query ")
					queries[q] = strings.TrimSpace(string(f.Data))
					order = append(order, q)
				default:
					t.Fatalf("unknown file %q", f.Name)
				}
			}
			ctx := context.Background()
			p := testkit.MustParse(t, prog)
			for _, c := range configurations() {
				opt, name := c.opt, c.name
				opt.Work = &eval.WorkCounters{}
				st := testkit.NewStore(t, base)
				for _, q := range order {
					as, err := Query(ctx, st, p, testkit.MustQuery(t, q), opt)
					if err != nil {
						t.Fatalf("query %s: %v", q, err)
					}
					if got := strings.TrimSpace(oracle.FormatAnswers(as)); got != queries[q] {
						t.Errorf("%s: query %s:\ngot\n%s\nwant\n%s", name, q, got, queries[q])
					}
					en, err := Prepare(ctx, st, p, opt)
					if err != nil {
						t.Fatal(err)
					}
					as, err = en.Query(ctx, testkit.MustQuery(t, q))
					if err != nil {
						t.Fatalf("engine query %s: %v", q, err)
					}
					if got := strings.TrimSpace(oracle.FormatAnswers(as)); got != queries[q] {
						t.Errorf("%s: engine query %s:\ngot\n%s\nwant\n%s", name, q, got, queries[q])
					}
				}
				chain += opt.Work.Chain.Load()
				if _, err := eval.Infer(ctx, st, p, opt); err != nil {
					t.Fatal(err)
				}
				if got := oracle.DerivedDump(t, st); hasDerived && got != derived {
					t.Errorf("%s: derived:\ngot\n%s\nwant\n%s", name, got, derived)
				}
				for _, q := range order {
					as, err := Query(ctx, st, nil, testkit.MustQuery(t, q), opt)
					if err != nil {
						t.Fatalf("stored query %s: %v", q, err)
					}
					if got := strings.TrimSpace(oracle.FormatAnswers(as)); got != queries[q] {
						t.Errorf("%s: stored query %s:\ngot\n%s\nwant\n%s", name, q, got, queries[q])
					}
				}
			}
		})
	}
	if chain == 0 {
		t.Error("no case took the chain fast path")
	}
}
