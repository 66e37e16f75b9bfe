package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/drumql/drumql/store"
)

// loadFamilies loads examples/families into a new store and returns its
// directory.
func loadFamilies(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "load", filepath.Join(repoRoot(t), "examples", "families")); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	return db
}

// A damaged table gives "the store at DIR is corrupt (FILE, ...)" and exit
// 3 from readers, writers and verify alike; an intact store verifies.
func TestCorruptStoreExit3(t *testing.T) {
	db := loadFamilies(t)
	out, stderr, code := runCLI(t, "", "--db", db, "verify")
	if code != 0 || !strings.Contains(out, ": ok (1 tables, ") {
		t.Fatalf("verify of an intact store: exit %d, %q %q", code, out, stderr)
	}
	ssts, _ := filepath.Glob(filepath.Join(db, "*.sst"))
	if len(ssts) != 1 {
		t.Fatalf("want one table, got %v", ssts)
	}
	b, err := os.ReadFile(ssts[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ssts[0], b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	want := "drumql: the store at " + db + " is corrupt (" + filepath.Base(ssts[0]) + ", "
	for _, args := range [][]string{
		{"verify"}, {"stats"}, {"query", "mother(X, Y)?"},
		{"load", filepath.Join(repoRoot(t), "examples", "families")},
	} {
		_, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q"}, args...)...)
		if code != 3 || !strings.HasPrefix(stderr, want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%s on a cut table: exit %d, stderr %q; want exit 3 and %q", args[0], code, stderr, want)
		}
	}
}

// Readers share the store; a writer beside a reader is refused at once
// with an "in use" error and exit 1.
func TestReadersShareStore(t *testing.T) {
	db := loadFamilies(t)
	held, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, args := range [][]string{{"stats"}, {"query", "mother(X, Y)?"}, {"verify"}} {
		if _, stderr, code := runCLI(t, "", append([]string{"--db", db}, args...)...); code != 0 {
			t.Errorf("%s beside a reader: exit %d: %s", args[0], code, stderr)
		}
	}
	_, stderr, code := runCLI(t, "", "--db", db, "load", filepath.Join(repoRoot(t), "examples", "families"))
	if code != 1 || !strings.Contains(stderr, "in use") || !strings.Contains(stderr, "hint:") {
		t.Errorf("load beside a reader: exit %d, stderr %q", code, stderr)
	}
}

func TestLoadInputChecks(t *testing.T) {
	tmp := t.TempDir()
	long := filepath.Join(tmp, "long.tsv")
	if err := os.WriteFile(long, []byte("a\tr\tb\n"+strings.Repeat("x", 5<<20)+"\tr\tc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"negative --inductive", []string{"load", "--inductive=-1", long}, "--inductive -1: want"},
		{"--inductive 0", []string{"load", "--inductive", "0", long}, "--inductive 0: want"},
		{"5 MB name", []string{"load", long}, long + ":2: a name of 5242880 bytes, longer than the limit of 32768\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(tmp, "db-"+c.name)
			_, stderr, code := runCLI(t, "", append([]string{"--db", db}, c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.want) || len(stderr) > 1000 {
				t.Errorf("exit %d, stderr %.300q; want exit 2 and %q", code, stderr, c.want)
			}
		})
	}
}

// Loading a second dataset replaces the splits of the first: the load
// says which, with the old and new sizes; loading the same data again
// says nothing.
func TestLoadReplacedSplitsWarning(t *testing.T) {
	db := loadFamilies(t)
	root := repoRoot(t)
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "load", filepath.Join(root, "examples", "families")); code != 0 || stderr != "" {
		t.Errorf("same data again: exit %d, stderr %q", code, stderr)
	}
	// The sizes of examples/kinship and examples/families, counted with wc -l.
	want := []string{}
	for _, split := range []string{"facts", "test", "train", "valid"} {
		old, okOld := lineCount(t, filepath.Join(root, "examples", "families", split+".txt"))
		nu, okNew := lineCount(t, filepath.Join(root, "examples", "kinship", split+".txt"))
		if okOld && okNew {
			want = append(want, "split \""+split+"\" replaced: it had "+itoa(old)+" triples, it now has the "+itoa(nu)+" of this load")
		}
	}
	if len(want) == 0 {
		t.Fatal("the two example datasets share no split")
	}
	_, stderr, code := runCLI(t, "", "--db", db, "-q", "load", filepath.Join(root, "examples", "kinship"))
	if code != 0 {
		t.Fatalf("second dataset: exit %d: %s", code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q lacks %q", stderr, w)
		}
	}
}

// lineCount counts the non-blank lines of a file; ok is false when it is
// missing.
func lineCount(t *testing.T, path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n := 0
	for l := range strings.SplitSeq(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n, true
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestMineFlagsValidated: a mine flag that the miner would replace by its
// default (0 for a count) or reject only after reading the graph is a usage
// error naming the flag, exit 2, before any work and without writing.
func TestMineFlagsValidated(t *testing.T) {
	tmp := t.TempDir()
	db := loadTSV(t, tmp, "a\tr\tb\nb\tr\tc\n")
	out := filepath.Join(tmp, "r.dl")
	progressed := hookMineProgress(t)
	for _, args := range [][]string{
		{"--len", "0"}, {"--len", "99"}, {"--epochs", "0"}, {"--batch", "0"}, {"--rank", "0"}, {"--seed", "0"},
		{"--min-score", "5"}, {"--min-score", "0"}, {"--rank", "2", "--min-score", "2.5"},
		{"--max-rules", "0"}, {"--candidates", "0"}, {"--beam", "0"}, {"--constant-rules", "0"}, {"--per-constant", "0"},
		{"--budget", "0"}, {"--head-budget", "0"}, {"--min-support", "0"}, {"--min-support=-2"}, {"--path-samples", "0"},
		{"--max-queries", "0"}, {"--max-fan-out", "0"}, {"--head-groups", "0"}, {"--threads=-1"},
	} {
		_, stderr, code := runCLI(t, "", append([]string{"--db", db, "mine", "--out", out}, args...)...)
		last := args[len(args)-1]
		flag := strings.Replace(last, "=", " ", 1) // --flag=-2
		if !strings.Contains(last, "=") {
			flag = args[len(args)-2] + " " + last
		}
		if code != 2 || !strings.Contains(stderr, flag+": want") || *progressed {
			t.Errorf("mine %v: exit %d, trained %v, stderr %q; want exit 2 naming %q", args, code, *progressed, stderr, flag)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused mine wrote %s", out)
	}
}

// minedComments returns, for every rule of a mined file, its comment line
// (the line above it).
func minedComments(t *testing.T, file string) (chain, constant []string) {
	t.Helper()
	lines := strings.Split(file, "\n")
	for i, l := range lines[1:] {
		if !strings.Contains(l, ":-") || strings.HasPrefix(l, "%") {
			continue
		}
		switch c := lines[i]; {
		case strings.HasPrefix(c, "% score="):
			chain = append(chain, c)
		case strings.HasPrefix(c, "% from the graph"):
			constant = append(constant, c)
		default:
			t.Fatalf("rule %q has no comment above it", l)
		}
	}
	return chain, constant
}

// TestMineFlagsReachEveryRule: --min-score drops every chain rule scored
// below it (the path samples' too), and --min-support and --budget reach the
// rules with constants as well as the chain rules.
func TestMineFlagsReachEveryRule(t *testing.T) {
	db := loadFamilies(t)
	mine := func(args ...string) (chain, constant []string) {
		t.Helper()
		out, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q", "mine", "--heads", "aunt", "--epochs", "1", "--aggregate", "max"}, args...)...)
		if code != 0 {
			t.Fatalf("mine %v: exit %d: %s", args, code, stderr)
		}
		return minedComments(t, out)
	}
	num := regexp.MustCompile(`(score|support)[=~]([0-9.e+-]+)`)
	field := func(c, name string) float64 {
		for _, m := range num.FindAllStringSubmatch(c, -1) {
			if m[1] == name {
				v, err := strconv.ParseFloat(m[2], 64)
				if err != nil {
					t.Fatalf("%q: %v", c, err)
				}
				return v
			}
		}
		t.Fatalf("comment %q has no %s", c, name)
		return 0
	}
	chain, constant := mine("--min-score", "0.01")
	if len(chain) == 0 {
		t.Fatal("--min-score 0.01 kept no chain rule")
	}
	for _, c := range chain {
		if field(c, "score") < 0.01 {
			t.Errorf("--min-score 0.01 kept %q", c)
		}
	}
	chain, constant = mine("--min-support", "4")
	if len(chain) == 0 || len(constant) == 0 {
		t.Fatalf("--min-support 4: %d chain rules, %d with constants", len(chain), len(constant))
	}
	for _, c := range append(chain, constant...) {
		if field(c, "support") < 4 {
			t.Errorf("--min-support 4 kept %q", c)
		}
	}
	// Two-step rules with constants exist by default; none can be counted
	// within one edge visit.
	twoStep := regexp.MustCompile(`^% from the graph .*\n.*:- \w+\([^)]*\), \w+\(`)
	count := func(args ...string) int {
		out, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q", "mine", "--heads", "aunt", "--epochs", "1", "--aggregate", "max"}, args...)...)
		if code != 0 {
			t.Fatalf("mine %v: exit %d: %s", args, code, stderr)
		}
		n := 0
		lines := strings.Split(out, "\n")
		for i := 1; i < len(lines); i++ {
			if twoStep.MatchString(lines[i-1] + "\n" + lines[i]) {
				n++
			}
		}
		return n
	}
	if n := count(); n == 0 {
		t.Fatal("no two-step rule with constants by default")
	}
	if n := count("--budget", "1"); n != 0 {
		t.Errorf("--budget 1 kept %d two-step rules with constants", n)
	}
}
