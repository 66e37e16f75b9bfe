package archtest

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/drumql/drumql"

// allowed lists, per top-level package, the top-level project packages it may
// import (docs/ARCHITECTURE.md, "The dependency rule"). cmd, bench and examples may import anything.
// Every package under internal/ is a leaf: it imports the standard library
// only, and every package may import it (the shared small pieces: a worker
// pool, TSV reading, spelling suggestions).
var allowed = map[string][]string{
	"internal": {},
	"datalog":  {},
	"parser":   {"datalog"},
	"store":    {},
	"reasoner": {"datalog", "store"},
	"miner":    {"datalog", "store"},
	"linkpred": {"store"},
	"cluster":  {"miner"},
	"server":   {"reasoner", "store", "datalog", "parser", "linkpred", "wire", "policy"},
	"policy":   {"reasoner", "store", "datalog", "linkpred"},
	"wire":     {"datalog", "reasoner", "store"},
	"remote":   {"datalog", "parser", "reasoner", "wire"},
	"rulefile": {"datalog", "parser", "souffle"},
	"mining":   {"miner", "scoring", "cluster", "reasoner", "linkpred", "store", "datalog", "rulefile"},
	"exchange": {"datalog", "parser", "rulefile"},
	"scoring":  {"linkpred", "miner", "reasoner", "store", "datalog", "policy"},
	"souffle":  {"datalog", "parser", "reasoner", "store"},
}

// leafImports lists, per package under internal/, the other packages
// under internal/ it may import: the few leaves that build on a smaller
// one. Every other leaf imports the standard library only.
var leafImports = map[string][]string{
	"internal/report":  {"internal/english"},    // counts in the report's captions
	"internal/profile": {"internal/atomicfile"}, // the heap profile at the peak, replaced whole
}

// within lists, for the packages of a top-level package that has several,
// the packages of the same top-level package each may import (by path from
// the module root); a package not listed may import none of its siblings.
// reasoner is the public face of its evaluator: the evaluator
// (reasoner/internal/eval) is the floor, goal-directed evaluation
// (reasoner/internal/goal) builds on it, queries and the Engine
// (reasoner/internal/query) on both; maintenance and rule combination are
// public packages over them, and nothing under reasoner imports the facade.
// The oracle the tests compare with is a package of its own, for tests, and
// so are the fixtures every package's tests share (reasoner/internal/testkit,
// which imports none of its siblings, so that the evaluator's tests may use
// it).
var within = map[string]map[string][]string{
	"reasoner": {
		"reasoner":                  {"reasoner/internal/eval", "reasoner/internal/query"},
		"reasoner/internal/eval":    {},
		"reasoner/internal/goal":    {"reasoner/internal/eval"},
		"reasoner/internal/query":   {"reasoner/internal/eval", "reasoner/internal/goal"},
		"reasoner/combine":          {"reasoner/internal/eval", "reasoner/internal/goal", "reasoner/internal/query"},
		"reasoner/maintain":         {"reasoner/internal/eval", "reasoner/combine"},
		"reasoner/internal/oracle":  {"reasoner/internal/eval"},
		"reasoner/internal/testkit": {},
	},
}

// withinTests lists what the tests of a package in within may import
// besides, none of which imports the package: the facade, whose types the
// examples show, the naive oracle (reasoner/internal/oracle, a package for
// tests), the fixtures they share (reasoner/internal/testkit, another),
// and the packages a test compares with (maintenance's tests check an
// update against the answers of a query from scratch).
var withinTests = map[string]map[string][]string{
	"reasoner": {
		"reasoner":                {"reasoner/internal/testkit"},
		"reasoner/internal/eval":  {"reasoner/internal/testkit"},
		"reasoner/internal/query": {"reasoner/internal/oracle", "reasoner/internal/testkit"},
		"reasoner/combine":        {"reasoner", "reasoner/internal/oracle", "reasoner/internal/testkit"},
		"reasoner/maintain":       {"reasoner", "reasoner/internal/query", "reasoner/internal/oracle", "reasoner/internal/testkit"},
	},
}

// testSupport lists the packages that exist for tests only (their non-test
// files import testing, and no package but a test imports them: within
// lists them for no package's non-test files): their own imports are held
// to the rule for tests, so that the fixtures may parse the dialect's text
// as the tests they serve may.
var testSupport = map[string]bool{
	"reasoner/internal/testkit": true,
}

// thirdParty lists the outside modules each package may use (prefixes).
var thirdParty = map[string][]string{
	"datalog":  {},
	"parser":   {"github.com/alecthomas/participle/v2"},
	"store":    {"github.com/dgraph-io/badger/v4"},
	"reasoner": {},
	"miner":    {"gonum.org/v1/gonum"},
	"linkpred": {},
	"cluster":  {"github.com/nats-io/nats.go"},
	"internal": {},
	"server":   {"github.com/prometheus/client_golang"},
	"exchange": {},
	"scoring":  {},
	"wire":     {},
	"rulefile": {},
	"mining":   {},
	"policy":   {},
	"souffle":  {},
}

// testOnly lists what a package's tests may import beyond what the package
// may (docs/ARCHITECTURE.md, "The dependency rule", the paragraph on tests):
// project packages by top-level name, outside modules by prefix. None of
// these edges makes a cycle: the imported packages do not import the
// importer.
var testOnly = map[string][]string{
	// the NATS server, run in process by the tests; the graph of the example
	"cluster": {"github.com/nats-io/nats-server/v2", "datalog", "store"},
	// rules and programs written in the dialect's text; txtar test cases
	"reasoner": {"parser", "golang.org/x/tools/txtar"},
	// rules written in the dialect's text
	"policy": {"parser"},
	// the web page driven in headless Chromium
	"server": {"github.com/chromedp/chromedp", "github.com/chromedp/cdproto"},
	// rules written in the dialect's text
	"scoring": {"parser"},
}

// buildContext sees every file whatever its build constraints, so that the
// imports of every platform's and every tag's files are checked.
func buildContext() build.Context {
	ctx := build.Default
	ctx.UseAllFiles = true
	return ctx
}

// check walks the module at root and returns every import that breaks the
// rule and every package directory it cannot read, and how many packages it
// checked.
func check(root string) (problems []string, checked int, err error) {
	ctx := buildContext()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a separate module (bench peers)
			}
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		top := strings.Split(rel, "/")[0]
		ok, restricted := allowed[top]
		if !restricted {
			return nil
		}
		pkg, err := ctx.ImportDir(path, 0)
		if err != nil {
			var none *build.NoGoError
			if errors.As(err, &none) {
				return nil
			}
			problems = append(problems, fmt.Sprintf("%s: cannot read the package's imports: %v", rel, err))
			return nil
		}
		checked++
		self := module + "/" + rel
		for _, imports := range []struct {
			list []string
			test bool
		}{{pkg.Imports, testSupport[rel]}, {pkg.TestImports, true}, {pkg.XTestImports, true}} {
			for _, imp := range imports.list {
				if p := forbidden(top, self, imp, ok, imports.test); p != "" {
					problems = append(problems, rel+p)
				}
			}
		}
		return nil
	})
	return problems, checked, err
}

// forbidden says why the package self, under top, may not import imp, or ""
// if it may.
func forbidden(top, self, imp string, ok []string, test bool) string {
	what := ""
	if test {
		what = " (tests)"
	}
	extra := []string(nil)
	if test {
		extra = testOnly[top]
	}
	if strings.HasPrefix(imp, module+"/") {
		to := strings.TrimPrefix(imp, module+"/")
		toTop := strings.Split(to, "/")[0]
		switch {
		case imp == self: // an external test package imports its package
		case toTop == top && within[top] != nil:
			from := strings.TrimPrefix(self, module+"/")
			if !slices.Contains(within[top][from], to) && !(test && slices.Contains(withinTests[top][from], to)) {
				return fmt.Sprintf("%s imports %s: not allowed by the dependency rule of docs/ARCHITECTURE.md (within %s)", what, imp, top)
			}
		case toTop == top && top != "internal", slices.Contains(ok, toTop), slices.Contains(extra, toTop):
		case toTop == "internal" && top != "internal": // a leaf: importable by every package
		case top == "internal" && slices.Contains(leafImports[strings.TrimPrefix(self, module+"/")], to):
		default:
			return fmt.Sprintf("%s imports %s: not allowed by the dependency rule of docs/ARCHITECTURE.md", what, imp)
		}
		return ""
	}
	if !strings.Contains(strings.Split(imp, "/")[0], ".") {
		return "" // standard library
	}
	if !hasPrefix(thirdParty[top], imp) && !hasPrefix(extra, imp) {
		return fmt.Sprintf("%s imports %s: no third-party module is allowed there but %v", what, imp, append(slices.Clone(thirdParty[top]), extra...))
	}
	return ""
}

func TestImportGraph(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	problems, checked, err := check(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if checked == 0 {
		t.Fatal("no package was checked")
	}
}

// TestCheckCatches runs the check on a small module in testdata whose
// packages break the rule in every way the check knows.
func TestCheckCatches(t *testing.T) {
	problems, checked, err := check(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"cluster (tests) imports github.com/drumql/drumql/reasoner: not allowed",
		"datalog: cannot read the package's imports",
		"internal/leaf (tests) imports github.com/drumql/drumql/internal/other: not allowed",
		"miner (tests) imports github.com/nats-io/nats-server/v2/server: no third-party module",
		"parser (tests) imports github.com/drumql/drumql/store: not allowed",
		"reasoner imports github.com/drumql/drumql/miner: not allowed",
		"store imports github.com/drumql/drumql/datalog: not allowed",
	}
	slices.Sort(problems)
	if len(problems) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(problems), len(want), strings.Join(problems, "\n"))
	}
	for i := range min(len(problems), len(want)) {
		if !strings.HasPrefix(problems[i], want[i]) {
			t.Errorf("problem %d: %q, want it to start with %q", i, problems[i], want[i])
		}
	}
	if checked != 7 {
		t.Errorf("checked %d packages, want 7", checked)
	}
}

func hasPrefix(prefixes []string, s string) bool {
	for _, p := range prefixes {
		if s == p || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}
