package archtest

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
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
	"linkpred": {"store", "datalog", "miner", "reasoner"},
	"cluster":  {"miner"},
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
}

func TestImportGraph(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
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
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return nil // a package mid-edit is the compiler's business
		}
		ok, restricted := allowed[top]
		if !restricted {
			return nil
		}
		checked++
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module+"/") {
				to := strings.TrimPrefix(imp, module+"/")
				toTop := strings.Split(to, "/")[0]
				if toTop == top && top != "internal" || contains(ok, toTop) {
					continue
				}
				if toTop == "internal" && top != "internal" {
					continue // a leaf: importable by every package
				}
				t.Errorf("%s imports %s: not allowed by the dependency rule of docs/ARCHITECTURE.md", rel, imp)
				continue
			}
			if !strings.Contains(strings.Split(imp, "/")[0], ".") {
				continue // standard library
			}
			if !hasPrefix(thirdParty[top], imp) {
				t.Errorf("%s imports %s: no third-party module is allowed there but %v", rel, imp, thirdParty[top])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no package was checked")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasPrefix(prefixes []string, s string) bool {
	for _, p := range prefixes {
		if s == p || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}
