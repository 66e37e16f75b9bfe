package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDialectExpressions runs a rules file with arithmetic, string
// built-ins and aggregates through query, explain and infer on the quick
// start graph, and asks a predicate nothing defines.
func TestDialectExpressions(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "load", filepath.Join(repoRoot(t), "examples", "families")); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	rules := filepath.Join(tmp, "counts.dl")
	src := `children(P, N) :- father(P, _), N = count : { father(P, _) }.
big(P) :- children(P, N), N >= 4.
initial(P, I) :- children(P, _), I = cat(substr(P, 0, 1), ".").
`
	if err := os.WriteFile(rules, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// The expected count, from the graph's files (load reads facts.txt
	// and train.txt).
	n := 0
	for _, name := range []string{"facts.txt", "train.txt"} {
		facts, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "families", name))
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(string(facts), "\n") {
			if f := strings.Split(strings.TrimSpace(line), "\t"); len(f) == 3 && f[0] == "fred_garcia" && f[1] == "father" {
				n++
			}
		}
	}
	out, stderr, code := runCLI(t, "", "--db", db, "query", "--rules", rules, "--format", "tsv", "children(fred_garcia, N)?")
	if code != 0 || !strings.Contains(out, "\t") {
		t.Fatalf("query: exit %d: %s%s", code, out, stderr)
	}
	if got := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[1])[0]; got != itoa(n) {
		t.Errorf("children(fred_garcia, N) = %s, want %d (the father facts of the graph)\n%s", got, n, out)
	}
	out, stderr, code = runCLI(t, "", "--db", db, "explain", "--rules", rules, "children(fred_garcia, "+itoa(n)+")")
	if code != 0 || !strings.Contains(out, "count : { father(fred_garcia, _) } = "+itoa(n)) || !strings.Contains(out, "aggregate") {
		t.Errorf("explain: exit %d:\n%s%s", code, out, stderr)
	}
	out, _, code = runCLI(t, "", "--db", db, "query", "--rules", rules, "initial(fred_garcia, I)?")
	if code != 0 || !strings.Contains(out, "f.") {
		t.Errorf("initial: exit %d: %s", code, out)
	}
	if _, stderr, code := runCLI(t, "", "--db", db, "infer", rules); code != 0 {
		t.Fatalf("infer: exit %d: %s", code, stderr)
	}
	out, _, code = runCLI(t, "", "--db", db, "query", "--format", "tsv", "children(fred_garcia, N)?")
	if code != 0 || !strings.Contains(out, "\n"+itoa(n)+"\t") {
		t.Errorf("stored children: exit %d: %s", code, out)
	}
	// A predicate nothing defines, no likely typo: empty, with a warning.
	out, stderr, code = runCLI(t, "", "--db", db, "query", "--rules", rules, "zebra(X)?")
	if code != 0 || strings.TrimSpace(out) != "" && !strings.Contains(out, "no answer") || !strings.Contains(stderr, "warning: nothing defines zebra") {
		t.Errorf("undefined: exit %d: %q %q", code, out, stderr)
	}
	// A likely typo is still an error.
	if _, stderr, code := runCLI(t, "", "--db", db, "query", "--rules", rules, "childern(X, N)?"); code == 0 || !strings.Contains(stderr, "did you mean children?") {
		t.Errorf("typo: exit %d: %s", code, stderr)
	}
	// An evaluation error names the rule and the values, exit 1.
	bad := filepath.Join(tmp, "bad.dl")
	os.WriteFile(bad, []byte("half(P, H) :- children(P, N), H = 10 / (N - N).\n"+src), 0o644)
	if _, stderr, code := runCLI(t, "", "--db", db, "query", "--rules", bad, "half(X, H)?"); code != 1 || !strings.Contains(stderr, "bad.dl:1:1: division by zero in 10 / (N - N) with N = ") {
		t.Errorf("division by zero: exit %d: %s", code, stderr)
	}
}

// TestSouffleRuleFile: a Soufflé program is a rule file like any other for
// check, infer and query, its .input relation the store's, combined with
// a file of drumql's dialect by relation name; the answers were worked
// out by hand (far: reachable, not by one edge). What only drumql run
// gives a meaning is an error at its line naming drumql run.
func TestSouffleRuleFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "load", writeFile(t, dir, "g.tsv", "a\tedge\tb\nb\tedge\tc\nc\tedge\td\n")); code != 0 {
		t.Fatalf("load: %s", stderr)
	}
	sf := writeFile(t, dir, "reach.dl", ".decl edge(x: symbol, y: symbol)\n.input edge\n.decl reach(x: symbol, y: symbol)\n.output reach\nreach(x, y) :- edge(x, y).\nreach(x, z) :- reach(x, y), edge(y, z).\n")
	df := writeFile(t, dir, "far.dl", "far(X, Y) :- reach(X, Y), not edge(X, Y).\n")
	if out, stderr, code := runCLI(t, "", "check", sf, df); code != 0 || !strings.HasPrefix(out, "ok: 0 facts, 3 rules") {
		t.Errorf("check: exit %d, %q, %s", code, out, stderr)
	}
	out, stderr, code := runCLI(t, "", "--db", db, "query", "--rules", sf, "--rules", df, "far(X, Y)?", "--format", "tsv")
	if code != 0 {
		t.Fatalf("query: exit %d: %s", code, stderr)
	}
	if want := "X\tY\tconfidence\na\tc\t1\na\td\t1\nb\td\t1\n"; out != want {
		t.Errorf("query: %q, want %q", out, want)
	}
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "infer", sf, df); code != 0 {
		t.Errorf("infer: exit %d: %s", code, stderr)
	}
	choice := writeFile(t, dir, "choice.dl", ".decl r(x: number, y: number) choice-domain x\nr(1, 2).\n")
	if _, stderr, code := runCLI(t, "", "check", choice); code != 2 || !strings.Contains(stderr, "choice.dl:1:7: error: the choice domain of r: run the program with drumql run") {
		t.Errorf("check of a choice domain: exit %d: %s", code, stderr)
	}
}
