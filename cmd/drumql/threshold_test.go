package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
)

// chainProgram is the chain of issue 29: ten edges n0 -> n1 -> ... -> n10
// of confidence 0.5 and a transitive path rule. path(n0, nk) holds with
// confidence 0.5^k, written out below by hand.
func chainProgram(directive string) string {
	var b strings.Builder
	b.WriteString(directive)
	for i := range 10 {
		fmt.Fprintf(&b, "0.5 :: edge(n%d, n%d).\n", i, i+1)
	}
	b.WriteString("path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), edge(Y, Z).\n")
	return b.String()
}

// chainAnswers are the tsv rows of path(n0, X)?: n1 .. n10 with 0.5^k
// (0.5, 0.25, ...: each the one before halved, written out by hand).
var chainAnswers = []string{
	"n1\t0.5",
	"n2\t0.25",
	"n3\t0.125",
	"n4\t0.0625",
	"n5\t0.03125",
	"n6\t0.015625",
	"n7\t0.0078125",
	"n8\t0.00390625",
	"n9\t0.001953125",
	"n10\t0.0009765625",
}

// chainCut is the note's count for the chain program at threshold min. A
// program this small is evaluated bottom-up (its goal-directed rewrite
// races against that evaluation, which finishes within its head start):
// path(ni, nj) for every start i, each step halving the confidence. The
// only derivations below the threshold that are tried are, for every start
// that has one, the first step below it (nothing builds on a dropped
// fact): with k the smallest length whose 0.5^k is below min, the starts
// n0 .. n(10-k), 11 - k derivations.
func chainCut(t *testing.T, min string) string {
	t.Helper()
	m, err := strconv.ParseFloat(min, 64)
	if err != nil {
		t.Fatal(err)
	}
	k := 1
	for c := 0.5; c >= m; c /= 2 {
		k++
	}
	if n := 11 - k; n != 1 {
		return fmt.Sprintf("%d derivations", n)
	}
	return "1 derivation"
}

// TestThresholdBelongsToProgram: a hand-written program without @min is
// evaluated exactly (every answer of the chain, and nothing on stderr);
// with @min 0.1 the answers below 0.1 are cut and a note on stderr says
// so, with the count; --min overrides the directive; files with different
// thresholds warn and use the smallest.
func TestThresholdBelongsToProgram(t *testing.T) {
	dir := t.TempDir()
	exact := writeFile(t, dir, "chain.dl", chainProgram(""))
	mined := writeFile(t, dir, "mined.dl", chainProgram("@min 0.1.\n"))
	other := writeFile(t, dir, "other.dl", "% another file with a lower threshold\n@min 0.05.\nq(a).\n")
	db := filepath.Join(dir, "none") // no store: drumql is a Datalog interpreter
	query := func(args ...string) (string, string) {
		t.Helper()
		out, stderr, code := runCLI(t, "", append([]string{"--db", db, "query"}, args...)...)
		if code != 0 {
			t.Fatalf("query %v: exit %d: %s", args, code, stderr)
		}
		return out, stderr
	}
	rows := func(n int) string { return "X\tconfidence\n" + strings.Join(chainAnswers[:n], "\n") + "\n" }
	note := func(min, source, verb string) string {
		back := "--min 1e-9 (or a lower @min) brings them back"
		if source == "--min" {
			back = "a lower --min brings them back"
		}
		return "drumql: note: the threshold " + min + " (" + source + ") cut " + chainCut(t, min) + ": answers below " + min + " " + verb + "; " + back + "\n"
	}

	// --top 2: 1, 0.5 then 0.25 (path(n0, n2)) are tried; 0.25 decides
	const decided = "drumql: note: the 2 best answers needed only the derivations of confidence 0.25 or more; the weaker ones were not evaluated (--top 0 evaluates every answer)\n"

	for _, tc := range []struct {
		name         string
		args         []string
		out, stderr  string
		wantAnswers  int
		checkAnswers bool
	}{
		{name: "no @min: exact", args: []string{"--rules", exact, "path(n0, X)?", "--format", "tsv"},
			out: rows(10)},
		{name: "no @min: ground query, 0.5^10", args: []string{"--rules", exact, "path(n0, n10)?"},
			out: "true 0.0009766\n"},
		{name: "@min 0.1", args: []string{"--rules", mined, "path(n0, X)?", "--format", "tsv"},
			out: rows(3), stderr: note("0.1", "@min in "+mined, "are not shown")},
		{name: "@min 0.1, -q still notes", args: []string{"--rules", mined, "path(n0, X)?", "--format", "tsv"},
			out: rows(3), stderr: note("0.1", "@min in "+mined, "are not shown")},
		{name: "@min 0.1, ground", args: []string{"--rules", mined, "path(n0, n10)?"},
			out: "false\n", stderr: note("0.1", "@min in "+mined, "are not shown")},
		{name: "@min 0.1, count", args: []string{"--rules", mined, "path(n0, X)?", "--count"},
			out: "3\n", stderr: note("0.1", "@min in "+mined, "are not counted")},
		{name: "@min 0.1, noisy-or", args: []string{"--rules", mined, "path(n0, X)?", "--format", "tsv", "--combine", "noisy-or"},
			out: rows(3), stderr: note("0.1", "@min in "+mined, "are not shown")},
		{name: "@min 0.1, --top 2: decided at 0.25", args: []string{"--rules", mined, "path(n0, X)?", "--format", "tsv", "--top", "2"},
			out: rows(2), stderr: decided},
		{name: "no @min, --top 2: decided at 0.25, nothing cut", args: []string{"--rules", exact, "path(n0, X)?", "--format", "tsv", "--top", "2"},
			out: rows(2)},
		{name: "@min 0.1, --top 3: down to the threshold", args: []string{"--rules", mined, "path(n0, X)?", "--format", "tsv", "--top", "3"},
			out: rows(3), stderr: note("0.1", "@min in "+mined, "are not shown")},
		// noisy-or over up to 5 rules: each answer has fewer rules above
		// 0.25, and weaker ones could still raise it
		{name: "@min 0.1, --top 2, noisy-or: down to the threshold", args: []string{"--rules", mined, "path(n0, X)?", "--format", "tsv", "--top", "2", "--combine", "noisy-or"},
			out: rows(2), stderr: note("0.1", "@min in "+mined, "are not shown")},
		{name: "--min overrides @min", args: []string{"--rules", mined, "path(n0, X)?", "--format", "tsv", "--min", "0.01"},
			out: rows(6), stderr: note("0.01", "--min", "are not shown")}, // 0.5^7 = 0.0078125 < 0.01
		{name: "--min overrides @min, nothing cut", args: []string{"--rules", mined, "path(n0, X)?", "--format", "tsv", "--min", "1e-9"},
			out: rows(10)},
		{name: "--min on a program without @min", args: []string{"--rules", exact, "path(n0, X)?", "--format", "tsv", "--min", "0.2"},
			out: rows(2), stderr: note("0.2", "--min", "are not shown")}, // 0.125 < 0.2
		{name: "two files, different @min: the smallest", args: []string{"--rules", mined, "--rules", other, "path(n0, X)?", "--format", "tsv"},
			out: rows(4), // 0.0625 >= 0.05 > 0.03125
			stderr: "drumql: warning: " + mined + " sets @min 0.1 and " + other + " @min 0.05: using 0.05 (the smallest; --min overrides)\n" +
				note("0.05", "@min in "+other, "are not shown")},
		{name: "two files, --min: no warning", args: []string{"--rules", mined, "--rules", other, "path(n0, X)?", "--format", "tsv", "--min", "0.1"},
			out: rows(3), stderr: note("0.1", "--min", "are not shown")},
		{name: "a file without @min makes no claim", args: []string{"--rules", exact, "--rules", other, "path(n0, X)?", "--format", "tsv"},
			out: rows(4), stderr: note("0.05", "@min in "+other, "are not shown")},
	} {
		args := tc.args
		if strings.Contains(tc.name, "-q") {
			out, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q", "query"}, args...)...)
			if code != 0 || out != tc.out || stderr != tc.stderr {
				t.Errorf("%s: exit %d\nstdout %q\nwant   %q\nstderr %q\nwant   %q", tc.name, code, out, tc.out, stderr, tc.stderr)
			}
			continue
		}
		out, stderr := query(args...)
		if out != tc.out || stderr != tc.stderr {
			t.Errorf("%s:\nstdout %q\nwant   %q\nstderr %q\nwant   %q", tc.name, out, tc.out, stderr, tc.stderr)
		}
	}
	// check says it too (it evaluates nothing: no note).
	_, stderr, code := runCLI(t, "", "check", mined, other)
	if want := "drumql: warning: " + mined + " sets @min 0.1 and " + other + " @min 0.05: using 0.05 (the smallest; --min overrides)\n"; code != 0 || stderr != want {
		t.Errorf("check: exit %d, stderr %q, want %q", code, stderr, want)
	}
	// Streamed (unordered) answers: the same three, in some order.
	out, stderr := query("--rules", mined, "path(n0, X)?", "--format", "tsv", "--unordered")
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	slices.Sort(got[1:])
	if want := strings.Split(strings.TrimSuffix(rows(3), "\n"), "\n"); !slices.Equal(got, want) ||
		stderr != note("0.1", "@min in "+mined, "are not shown") {
		t.Errorf("--unordered: stdout %q, want the rows %q; stderr %q", out, want, stderr)
	}
}

// TestExplainThreshold: explain finds the 0.5^10 proof without @min; with
// @min 0.1 the fact has no proof and the error says the threshold may be
// why, and how to lower it; --min brings the proof back.
func TestExplainThreshold(t *testing.T) {
	dir := t.TempDir()
	exact := writeFile(t, dir, "chain.dl", chainProgram(""))
	mined := writeFile(t, dir, "mined.dl", chainProgram("@min 0.1.\n"))
	db := filepath.Join(dir, "none")
	out, stderr, code := runCLI(t, "", "--db", db, "explain", "--rules", exact, "path(n0, n10)")
	if code != 0 || !strings.HasPrefix(out, "path(n0, n10)  [0.0009766]\n") || stderr != "" {
		t.Errorf("no @min: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	out, stderr, code = runCLI(t, "", "--db", db, "explain", "--rules", mined, "path(n0, n10)")
	want := "drumql: path(n0, n10) has no derivation with confidence >= 0.1, the threshold (@min in " + mined +
		"), which cut " + chainCut(t, "0.1") + ": it may hold with a lower confidence; --min 1e-9 (or a lower @min) would show it\n"
	if code != 1 || out != "" || stderr != want {
		t.Errorf("@min 0.1: exit %d, stdout %q\nstderr %q\nwant   %q", code, out, stderr, want)
	}
	out, stderr, code = runCLI(t, "", "--db", db, "explain", "--rules", mined, "--min", "0.0005", "path(n0, n10)")
	if code != 0 || !strings.HasPrefix(out, "path(n0, n10)  [0.0009766]\n") || stderr != "" {
		t.Errorf("--min 0.0005: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// A fact that does not hold at all, with nothing cut: no word of a
	// threshold.
	_, stderr, code = runCLI(t, "", "--db", db, "explain", "--rules", exact, "path(n1, n0)")
	if want := "drumql: path(n1, n0) does not hold (no derivation)\n"; code != 1 || stderr != want {
		t.Errorf("path(n1, n0): exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// TestInferThreshold: infer without @min or --min is exact; with @min 0.1
// it stores only the paths of confidence at least 0.1 and notes what the
// threshold cut.
func TestInferThreshold(t *testing.T) {
	db := loadedDB(t, "x\tr\ty\n")
	dir := t.TempDir()
	exact := writeFile(t, dir, "chain.dl", chainProgram(""))
	mined := writeFile(t, dir, "mined.dl", chainProgram("@min 0.1.\n"))
	// Every path of the chain: 10 of one edge, 9 of two, ..., 1 of ten.
	out, stderr, code := runCLI(t, "", "--db", db, "-q", "infer", exact)
	if code != 0 {
		t.Fatalf("exact: exit %d: %s%s", code, out, stderr)
	}
	if !containsCount(out, "edge", 10) || !containsCount(out, "path", 55) || stderr != "" {
		t.Errorf("exact: want 55 paths and nothing on stderr:\n%s[stderr]\n%s", out, stderr)
	}
	// 0.5 (10 paths), 0.25 (9) and 0.125 (8) are kept, 0.0625 is not.
	out, stderr, code = runCLI(t, "", "--db", db, "-q", "infer", "--full", mined)
	if code != 0 || !containsCount(out, "path", 27) {
		t.Errorf("@min 0.1: exit %d, want 27 paths:\n%s%s", code, out, stderr)
	}
	prefix := "drumql: note: the threshold 0.1 (@min in " + mined + ") cut "
	suffix := " derivations: derived facts below 0.1 are not stored; --min 1e-9 (or a lower @min) brings them back\n"
	if !strings.HasPrefix(stderr, prefix) || !strings.HasSuffix(stderr, suffix) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("@min 0.1: stderr %q, want %q N %q", stderr, prefix, suffix)
	}
	// --min overrides: 0.5^4 = 0.0625 >= 0.05 > 0.5^5, so 10+9+8+7 paths.
	out, _, code = runCLI(t, "", "--db", db, "-q", "infer", "--full", "--min", "0.05", mined)
	if code != 0 || !containsCount(out, "path", 34) {
		t.Errorf("--min 0.05: exit %d, want 34 paths:\n%s", code, out)
	}
}

// containsCount reports whether infer's output lists pred with n facts.
func containsCount(out, pred string, n int) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == pred && f[1] == fmt.Sprint(n) {
			return true
		}
	}
	return false
}

// TestMineWritesThreshold: the file mine writes sets @min (0.1, or
// --threshold), with a comment, and parses back with that threshold; a
// --threshold outside (0, 1] is refused before training.
func TestMineWritesThreshold(t *testing.T) {
	tmp := t.TempDir()
	db := loadTSV(t, tmp, "a\thusband\tb\nb\twife\ta\nc\thusband\td\nd\twife\tc\ne\thusband\tf\nf\twife\te\n")
	for _, tc := range []struct {
		args []string
		line string
		min  float64
	}{
		{nil, "@min 0.1.", 0.1},
		{[]string{"--threshold", "0.05"}, "@min 0.05.", 0.05},
	} {
		file := filepath.Join(tmp, "r.dl")
		args := append([]string{"--db", db, "-q", "mine", "--epochs", "1", "--out", file}, tc.args...)
		if _, stderr, code := runCLI(t, "", args...); code != 0 {
			t.Fatalf("mine %v: exit %d: %s", tc.args, code, stderr)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src := string(data)
		if !strings.Contains(src, "\n% infer, query and explain drop derivations of these rules below @min") ||
			!strings.Contains(src, "\n"+tc.line+"\n") {
			t.Errorf("mine %v wrote no %s with its comment:\n%.600s", tc.args, tc.line, src)
		}
		p, err := parser.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := p.Threshold(); !ok || m != tc.min || len(p.Rules) == 0 {
			t.Errorf("mine %v: the file's threshold is %v, %v (%d rules), want %v", tc.args, m, ok, len(p.Rules), tc.min)
		}
	}
	for _, bad := range []string{"0", "1.5", "-0.1"} {
		progressed := hookMineProgress(t)
		_, stderr, code := runCLI(t, "", "--db", db, "-q", "mine", "--threshold="+bad, "--out", filepath.Join(tmp, "x.dl"))
		want := "--threshold " + bad + ": the threshold written as @min must be in (0, 1]"
		if code != 2 || !strings.Contains(stderr, want) || *progressed {
			t.Errorf("--threshold %s: exit %d, trained %v, stderr %q; want exit 2 and %q", bad, code, *progressed, stderr, want)
		}
	}
}
