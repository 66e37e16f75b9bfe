package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/drumql/drumql/internal/rodir"
	"github.com/drumql/drumql/miner"
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
		{"5 MB name", []string{"load", long}, long + ":2: a name of 5242880 bytes, longer than the limit of 1048576\n"},
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
	chain, _ := mine("--min-score", "0.01")
	if len(chain) == 0 {
		t.Fatal("--min-score 0.01 kept no chain rule")
	}
	for _, c := range chain {
		if field(c, "score") < 0.01 {
			t.Errorf("--min-score 0.01 kept %q", c)
		}
	}
	chain, constant := mine("--min-support", "4")
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

// TestMineOutputsCheckedFirst: an output path that cannot be written
// (--out, --save-model or --report into a missing directory, or a
// directory) is a usage error before training, naming the flag.
func TestMineOutputsCheckedFirst(t *testing.T) {
	tmp := t.TempDir()
	db := loadTSV(t, tmp, "a\tr\tb\nb\tr\tc\n")
	progressed := hookMineProgress(t)
	missing := filepath.Join(tmp, "missing", "x")
	for _, args := range [][]string{
		{"--out", missing}, {"--save-model", missing}, {"--report", missing}, {"--out", tmp},
	} {
		_, stderr, code := runCLI(t, "", append([]string{"--db", db, "mine", "--epochs", "1"}, args...)...)
		if code != 2 || !strings.Contains(stderr, args[0]+" "+args[1]+": ") || *progressed {
			t.Errorf("mine %v: exit %d, trained %v, stderr %q; want exit 2 naming the flag, before training", args, code, *progressed, stderr)
		}
	}
}

// TestMineOutKeepsEdits: mine --out replaces a file it wrote, but not a file
// it did not write or one edited since (the checksum of its first line),
// unless --force; the file is mode 0644 masked by the umask.
func TestMineOutKeepsEdits(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o027))
	tmp := t.TempDir()
	db := loadTSV(t, tmp, "a\tr\tb\nb\tr\tc\nc\tr\td\n")
	out := filepath.Join(tmp, "rules.dl")
	mine := func(args ...string) (string, int) {
		_, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q", "mine", "--epochs", "1", "--out", out}, args...)...)
		return stderr, code
	}
	if stderr, code := mine(); code != 0 {
		t.Fatalf("mine: exit %d: %s", code, stderr)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mined file: mode %v, %v; want -rw-r----- under umask 027", fi.Mode(), err)
	}
	if stderr, code := mine(); code != 0 {
		t.Fatalf("mine over its own file: exit %d: %s", code, stderr)
	}
	first, _ := os.ReadFile(out)
	for _, c := range []struct {
		name, content, want string
	}{
		{"edited", strings.Replace(string(first), "\n@min", "\n% my note\n@min", 1), "was edited since drumql mine wrote it"},
		{"hand-written", "r(X, Y) :- r(Y, X).\n", "was not written by drumql mine"},
		{"older mine", "% drumql mine: 1 rules for 1 head relations from db\nr(X, Y) :- r(Y, X).\n", "has no checksum"},
	} {
		if err := os.WriteFile(out, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		stderr, code := mine()
		got, _ := os.ReadFile(out)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "--force") || string(got) != c.content {
			t.Errorf("%s file: exit %d, stderr %q, file kept %v; want exit 2 saying %q", c.name, code, stderr, string(got) == c.content, c.want)
		}
	}
	if stderr, code := mine("--force"); code != 0 {
		t.Fatalf("mine --force: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(out); !strings.HasPrefix(string(got), minedHeader) {
		t.Errorf("mine --force did not replace the file:\n%s", got)
	}
	// Edited while mine trains: the edit stays, the rules go beside it.
	edit := "% being edited\n"
	testHookMineProgress = func(miner.Progress) { os.WriteFile(out, []byte(edit), 0o644) }
	defer func() { testHookMineProgress = nil }()
	stderr, code := mine()
	got, _ := os.ReadFile(out)
	beside, _ := os.ReadFile(out + ".new")
	if code == 0 || !strings.Contains(stderr, out+".new") || string(got) != edit || !strings.HasPrefix(string(beside), minedHeader) {
		t.Errorf("edited during mine: exit %d, stderr %q, file %q, beside it %.60q", code, stderr, got, beside)
	}
}

// Rule files and their imports are read only when they are regular files,
// up to --max-import-size, and imports only from the directory of the file
// given unless --allow-import-outside; each refusal is an input error (exit
// 2) at the import, a source line is quoted as a short excerpt, and an
// interrupted read exits 1.
func TestImportBounds(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "rules")
	write := func(name, text string) string { return writeFile(t, dir, name, text) }
	if err := os.WriteFile(filepath.Join(tmp, "outside.tsv"), []byte("a\tr\tb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.tsv")
	outside := write("outside.dl", "@import \"../outside.tsv\".\n")
	write("big.tsv", strings.Repeat("a\tr\tb\n", 1000))
	big := write("big.dl", "@import \"big.tsv\".\n")
	write("long.tsv", "x\ty\t"+strings.Repeat("z\t", 50000)+"\n")
	long := write("long.dl", "@import \"long.tsv\".\n")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	viaFifo := write("fifo.dl", "@import \"fifo.tsv\".\n")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"outside", []string{"check", outside}, 2, outside + ":1:1: error: cannot import \"../outside.tsv\": it is outside "},
		{"outside hint", []string{"check", outside}, 2, "(pass --allow-import-outside to read it)"},
		{"outside allowed", []string{"--allow-import-outside", "check", outside}, 0, ""},
		{"too large", []string{"--max-import-size", "1K", "check", big}, 2, "the file has 5.9 KiB, more than the limit of 1.0 KiB (pass --max-import-size SIZE to raise the limit)"},
		{"limit raised", []string{"--max-import-size", "6K", "check", big}, 0, ""},
		{"bad limit", []string{"--max-import-size", "lots", "check", big}, 2, "--max-import-size: size \"lots\""},
		{"fifo imported", []string{"check", viaFifo}, 2, "cannot import \"fifo.tsv\": not a regular file (a named pipe)"},
		{"fifo given", []string{"check", fifo}, 2, fifo + ": error: not a regular file (a named pipe)"},
		{"device given", []string{"check", "/dev/zero"}, 2, "/dev/zero: error: not a regular file (a device)"},
		{"long line", []string{"check", long}, 2, "got 50003\nx\ty\tz\tz"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan struct{})
			var stderr string
			var code int
			go func() {
				_, stderr, code = runCLI(t, "", c.args...)
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("no answer in 20 s")
			}
			if code != c.code || !strings.Contains(stderr, c.want) || len(stderr) > 1000 {
				t.Errorf("exit %d, stderr %.1000q; want exit %d and %q", code, stderr, c.code, c.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	write("huge.tsv", strings.Repeat("a\tr\tb\n", 200000))
	huge := write("huge.dl", "@import \"huge.tsv\".\n")
	if code := run(ctx, []string{"check", huge}, strings.NewReader(""), &out, &errb); code != 1 || errb.String() != "drumql: interrupted while reading "+huge+"\n" {
		t.Errorf("interrupted: exit %d, stderr %q", code, errb.String())
	}
}

// A store that lost its MANIFEST or has a damaged KEYREGISTRY is corrupt
// (exit 3), for readers and writers; a store on a read-only file system is
// read as it is, and a writer is told the directory is not writable (exit
// 1, with a hint), not Badger's "Cannot write pid file".
func TestDamagedAndReadOnlyStore(t *testing.T) {
	families := filepath.Join(repoRoot(t), "examples", "families")
	for _, tc := range []struct {
		file   string
		damage func(path string) error
	}{
		{"MANIFEST", os.Remove},
		{"KEYREGISTRY", func(p string) error { return os.WriteFile(p, []byte("garbage garbage garbage"), 0o600) }},
	} {
		db := loadFamilies(t)
		if err := tc.damage(filepath.Join(db, tc.file)); err != nil {
			t.Fatal(err)
		}
		want := "drumql: the store at " + db + " is corrupt (" + tc.file + ", "
		for _, args := range [][]string{{"stats"}, {"verify"}, {"load", families}} {
			_, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q"}, args...)...)
			if code != 3 || !strings.HasPrefix(stderr, want) {
				t.Errorf("%s after %s damaged: exit %d, stderr %q; want exit 3 and %q", args[0], tc.file, code, stderr, want)
			}
		}
	}

	db := loadFamilies(t)
	rodir.Make(t, db)
	if out, stderr, code := runCLI(t, "", "--db", db, "stats"); code != 0 || !strings.Contains(out, "entities:") {
		t.Errorf("stats on a read-only store: exit %d, %q", code, stderr)
	}
	for _, args := range [][]string{{"load", families}, {"infer", filepath.Join(families, "expert.dl")}} {
		_, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q"}, args...)...)
		if code != 1 || !strings.HasPrefix(stderr, "drumql: store: open "+db+": directory not writable (") ||
			!strings.Contains(stderr, "\nhint: load and infer write to the store; query, explain, stats, eval, mine and verify open it read-only") ||
			strings.Contains(stderr, "pid file") {
			t.Errorf("%s on a read-only store: exit %d, stderr %q", args[0], code, stderr)
		}
	}
}

// A query given on the command line is shown as typed under an error: an
// empty one says so, and an unfinished one ends where the user stopped
// (no caret under a "?" the user did not type).
func TestQueryMessages(t *testing.T) {
	db := loadFamilies(t)
	for _, c := range []struct{ query, want string }{
		{"", "drumql: query:1:1: error: empty query: write an atom such as wife(X, alice)?\n\n^\n"},
		{" ? ", "drumql: query:1:1: error: empty query: write an atom such as wife(X, alice)?\n?\n^\n"},
		{"wife(X, alice", "drumql: query:1:14: error: unexpected end of query, expected \")\"\nwife(X, alice\n             ^\n"},
		{"NaN :: wife(X, a)", "drumql: query:1:1: error: weight NaN is not a number: a weight is a number in (0, 1], such as 0.9 :: p(a).\nNaN :: wife(X, a)\n^\n"},
	} {
		_, stderr, code := runCLI(t, "", "--db", db, "query", c.query)
		if code != 2 || stderr != c.want {
			t.Errorf("query %q: exit %d, stderr\n%s\nwant exit 2 and\n%s", c.query, code, stderr, c.want)
		}
	}
}
