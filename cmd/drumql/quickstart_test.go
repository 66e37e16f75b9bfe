package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// quickstartBox is a scratch copy of the repository layout for
// examples/quickstart.sh, with a stub go that builds a stub drumql: load
// makes a store (its MANIFEST "fresh", its generation 1 in GEN), stats
// --format json reports the generation, mine writes a mined file.
type quickstartBox struct {
	t   *testing.T
	dir string
}

func newQuickstartBox(t *testing.T) *quickstartBox {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	b := &quickstartBox{t: t, dir: t.TempDir()}
	script, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "quickstart.sh"))
	if err != nil {
		t.Fatal(err)
	}
	b.write("examples/quickstart.sh", string(script))
	b.write("fakebin/go", `#!/bin/sh
cat > "$3" <<'X'
#!/bin/sh
[ "$1" = -q ] && shift
case "$1" in
load) mkdir -p drumql.db && echo fresh > drumql.db/MANIFEST && echo 1 > drumql.db/GEN ;;
stats) [ -e drumql.db/GEN ] || exit 1; printf '{\n  "generation": %s\n}\n' "$(cat drumql.db/GEN)" ;;
mine) printf '%% drumql mine: stub\n0.5 :: wife(A, B) :- husband(B, A).\n' > families.dl ;;
esac
X
chmod +x "$3"
`)
	return b
}

// write writes a file of the box (executable).
func (b *quickstartBox) write(path, content string) {
	b.t.Helper()
	p := filepath.Join(b.dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		b.t.Fatal(err)
	}
}

// read returns a file of the box ("" if missing).
func (b *quickstartBox) read(path string) string {
	got, _ := os.ReadFile(filepath.Join(b.dir, path))
	return string(got)
}

// run runs the quick start.
func (b *quickstartBox) run() (string, error) {
	cmd := exec.Command("bash", filepath.Join(b.dir, "examples", "quickstart.sh"))
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(b.dir, "fakebin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mustRun runs the quick start, which must succeed.
func (b *quickstartBox) mustRun(what string) {
	b.t.Helper()
	if out, err := b.run(); err != nil {
		b.t.Fatalf("%s: %v:\n%s", what, err, out)
	}
}

// refused runs the quick start, which must refuse with want in its
// message and leave drumql.db and families.dl as they were.
func (b *quickstartBox) refused(what, want string) {
	b.t.Helper()
	manifest, gen, fam := b.read("drumql.db/MANIFEST"), b.read("drumql.db/GEN"), b.read("families.dl")
	out, err := b.run()
	if err == nil || !strings.Contains(out, want) || !strings.Contains(out, "nothing was removed") {
		b.t.Fatalf("%s: want a refusal saying %q, got %v:\n%s", what, want, err, out)
	}
	if b.read("drumql.db/MANIFEST") != manifest || b.read("drumql.db/GEN") != gen || b.read("families.dl") != fam {
		b.t.Errorf("%s: the refusal changed the store or families.dl", what)
	}
}

// TestQuickstartKeepsForeignStore: a ./drumql.db the quick start did not
// create is left alone (exit 1), one it created is replaced.
func TestQuickstartKeepsForeignStore(t *testing.T) {
	b := newQuickstartBox(t)
	b.write("drumql.db/MANIFEST", "the user's own store\n")
	b.refused("a store of the user's", "did not create it")
	if err := os.RemoveAll(filepath.Join(b.dir, "drumql.db")); err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 2; run++ { // creates the store, then replaces its own
		b.write("drumql.db/MANIFEST", "stale\n")
		if run == 1 {
			os.RemoveAll(filepath.Join(b.dir, "drumql.db"))
		}
		b.mustRun("run")
		if got := b.read("drumql.db/MANIFEST"); got != "fresh\n" {
			t.Errorf("quickstart run %d: store holds %q", run, got)
		}
	}
}

// TestQuickstartScenarios: after facts added through serve (the store's
// generation moved on) and after a rule removed through serve (families.dl
// edited) the quick start refuses before removing anything; unchanged, it
// replaces its store and keeps the store's edits.dl.
func TestQuickstartScenarios(t *testing.T) {
	b := newQuickstartBox(t)
	b.mustRun("first run")
	if m := b.read("drumql.db/.created-by-quickstart"); !strings.Contains(m, "generation=1\n") || !strings.Contains(m, "families=") {
		t.Fatalf("marker: %q", m)
	}
	// nothing changed, but rules added through serve: replaced, edits.dl kept
	b.write("drumql.db/MANIFEST", "to be replaced\n")
	b.write("drumql.db/edits.dl", "0.9 :: spouse(X, Y) :- wife(X, Y).\n")
	b.mustRun("unchanged")
	if b.read("drumql.db/MANIFEST") != "fresh\n" || b.read("drumql.db/edits.dl") != "0.9 :: spouse(X, Y) :- wife(X, Y).\n" {
		t.Errorf("unchanged: store %q, edits.dl %q", b.read("drumql.db/MANIFEST"), b.read("drumql.db/edits.dl"))
	}
	// a rule removed through serve: families.dl edited
	b.write("families.dl", "% drumql mine: stub\n")
	b.refused("a rule removed", "families.dl changed")
	b.mustRunAfter("families.dl", "% drumql mine: stub\n0.5 :: wife(A, B) :- husband(B, A).\n")
	// facts added through serve: the generation moved on
	b.write("drumql.db/GEN", "2\n")
	b.refused("facts added", "generation 1, now 2")
	// a marker without a generation (an older quick start's): refused
	b.write("drumql.db/GEN", "1\n")
	b.write("drumql.db/.created-by-quickstart", "")
	b.refused("an old marker", "generation unknown")
	// the store held by a server: stats fails
	os.Remove(filepath.Join(b.dir, "drumql.db/GEN"))
	b.refused("a store held", "cannot read")
}

// mustRunAfter puts a file back as the quick start wrote it and runs it.
func (b *quickstartBox) mustRunAfter(path, content string) {
	b.t.Helper()
	b.write(path, content)
	b.mustRun("after putting " + path + " back")
}
