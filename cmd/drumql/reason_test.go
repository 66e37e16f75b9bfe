package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// TestWarnUnknownBody: a body predicate that neither the store nor the
// program defines is a warning, with the names nearest to it (quoted when
// needed).
func TestWarnUnknownBody(t *testing.T) {
	st := store.NewMemory()
	b := store.Batch{Graph: []store.NamedTriple{
		{S: "a", R: "wife", O: "b"}, {S: "b", R: "wives", O: "a"}, {S: "a", R: "/people/spouse_s", O: "b"},
	}}
	if _, err := st.Load(context.Background(), &b, nil); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		src, want string
	}{
		{"p(X, Y) :- wife(X, Y).\n", ""},
		{"p(X, Y) :- wief(X, Y).\n",
			"r.dl:1:12: warning: wief is not a relation of the store and no rule or fact defines it: the literal never holds; did you mean wife, wives?\n"},
		{"p(X, Y) :- \"/people/spouse\"(X, Y).\n",
			"r.dl:1:12: warning: \"/people/spouse\" is not a relation of the store and no rule or fact defines it: the literal never holds; did you mean \"/people/spouse_s\"?\n"},
		{"p(X, Y) :- colleague(X, Y).\n",
			"r.dl:1:12: warning: colleague is not a relation of the store and no rule or fact defines it: the literal never holds\n"},
		// Defined by a rule of the program: no warning; a misspelt use of it
		// is suggested the rule's head.
		{"spouse(X) :- wife(X, _).\np(X) :- spouse(X).\nr(X) :- spuose(X).\n",
			"r.dl:3:9: warning: spuose is not a relation of the store and no rule or fact defines it: the literal never holds; did you mean spouse?\n"},
	}
	for _, c := range cases {
		prog, err := parser.ParseString("r.dl", c.src)
		if err != nil {
			t.Fatal(err)
		}
		var w bytes.Buffer
		warnUnknownBody(&w, st, prog)
		got := w.String()
		// Keep the first line of each warning (the source line and caret follow).
		var first bytes.Buffer
		for i, line := range bytes.SplitAfter([]byte(got), []byte("\n")) {
			if i%3 == 0 {
				first.Write(line)
			}
		}
		if first.String() != c.want {
			t.Errorf("%q: warnings\n%s\nwant first lines\n%s", c.src, got, c.want)
		}
	}
}

// writeFile writes text to name in dir, creating the directories of name,
// and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadedDB returns a store loaded with the triples of tsv.
func loadedDB(t *testing.T, tsv string) string {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "load", writeFile(t, dir, "g.tsv", tsv)); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	return db
}

// TestProofJSON: query --format json --explain is one JSON document with a
// proof per answer, and explain --format json uses snake_case keys and []
// for no children.
func TestProofJSON(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "p.dl", "e(a, b).\ne(b, c).\n0.5 :: p(X, Y) :- e(X, Y).\n")
	db := filepath.Join(dir, "none")
	keys := []string{"base", "children", "col", "confidence", "fact", "file", "line", "negated", "rule", "weight"}
	checkProof := func(what string, v any) {
		t.Helper()
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: proof %v is not an object", what, v)
		}
		got := sortedKeys(m)
		if !slices.Equal(got, keys) {
			t.Errorf("%s: proof keys %v, want %v", what, got, keys)
		}
		if m["fact"] != "p(a, b)" || m["confidence"] != 0.5 || m["line"] != 3.0 {
			t.Errorf("%s: proof %v, want p(a, b) at 0.5 from line 3", what, m)
		}
		cs, ok := m["children"].([]any)
		if !ok || len(cs) != 1 {
			t.Fatalf("%s: children %v, want one", what, m["children"])
		}
		leaf := cs[0].(map[string]any)
		if c, ok := leaf["children"].([]any); !ok || len(c) != 0 {
			t.Errorf("%s: leaf children %#v, want []", what, leaf["children"])
		}
	}
	out, stderr, code := runCLI(t, "", "--db", db, "query", "--rules", prog, "p(a, X)?", "--format", "json", "--explain")
	if code != 0 {
		t.Fatalf("query: exit %d: %s", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("query --format json --explain: %v\n%s", err, out)
	}
	if len(rows) != 1 || rows[0]["X"] != "b" {
		t.Fatalf("rows %v, want one with X = b", rows)
	}
	checkProof("query", rows[0]["proof"])
	out, stderr, code = runCLI(t, "", "--db", db, "explain", "--rules", prog, "p(a, b)", "--format", "json")
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, stderr)
	}
	var p any
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("explain --format json: %v\n%s", err, out)
	}
	checkProof("explain", p)
}

// TestFlagRanges: out-of-range flags are usage errors (exit 2) that name the
// flag, before any work.
func TestFlagRanges(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"query", "p(X)?", "--min", "1.5"}, "--min 1.5: a confidence threshold must be in (0, 1]"},
		{[]string{"query", "p(X)?", "--min", "0"}, "--min 0: a confidence threshold must be in (0, 1]"},
		{[]string{"query", "p(X)?", "--top=-1"}, "--top -1: must be 0 or more"},
		{[]string{"query", "p(X)?", "--threads=-2"}, "--threads -2: must be 0 or more"},
		{[]string{"infer", "x.dl", "--max-facts", "0"}, "--max-facts 0: must be more than 0"},
		{[]string{"infer", "x.dl", "--min=-1"}, "--min -1: a confidence threshold must be in (0, 1]"},
		{[]string{"infer", "x.dl", "--max-memory", "lots"}, "--max-memory lots: "},
		{[]string{"infer", "x.dl", "--max-memory", "0"}, "--max-memory 0: must be more than 0 (or off)"},
		{[]string{"explain", "p(a)", "--min", "2"}, "--min 2: a confidence threshold must be in (0, 1]"},
	}
	for _, c := range cases {
		_, stderr, code := runCLI(t, "", append([]string{"--db", db}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestStoreArityError: a rule over a store relation with the wrong arity is
// an input error naming file:line:col and the store's arity, and the store
// keeps its derived facts.
func TestStoreArityError(t *testing.T) {
	db := loadedDB(t, "bob\thusband\talice\n")
	dir := t.TempDir()
	good := writeFile(t, dir, "good.dl", "h(X) :- husband(X, _).\n")
	bad := writeFile(t, dir, "w.dl", "w(X) :- husband(X).\n")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "infer", good); code != 0 {
		t.Fatalf("infer: exit %d: %s", code, stderr)
	}
	_, stderr, code := runCLI(t, "", "--db", db, "-q", "infer", bad)
	want := bad + ":1:9: error: husband has arity 2 in the store (its base facts), used here with 1 argument"
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("infer w.dl: exit %d, stderr %q; want exit 2 and %q", code, stderr, want)
	}
	out, _, code := runCLI(t, "", "--db", db, "query", "h(X)?", "--format", "tsv")
	if code != 0 || out != "X\tconfidence\nbob\t1\n" {
		t.Errorf("derived facts after the failed infer: exit %d, %q", code, out)
	}
}

// TestCapitalisedHint: a variable whose name is an entity, as written or in
// lower case, gets a hint.
func TestCapitalisedHint(t *testing.T) {
	db := loadedDB(t, "alice\twife\tmarc_ueda\nbob\twife\tMarc\n")
	cases := []struct {
		query, want string
	}{
		{"wife(X, Marc_Ueda)?", "hint: Marc_Ueda is a variable (a name that starts with an uppercase letter); the entity is written marc_ueda\n"},
		{"wife(X, Marc)?", "hint: Marc is a variable (a name that starts with an uppercase letter); the entity is written \"Marc\"\n"},
		{"wife(X, Y)?", ""},
		{"wife(Alice, _)?", "hint: Alice is a variable (a name that starts with an uppercase letter); the entity is written alice\n"},
	}
	for _, c := range cases {
		_, stderr, code := runCLI(t, "", "--db", db, "-q", "query", c.query)
		if code != 0 || stderr != c.want {
			t.Errorf("%s: exit %d, stderr %q, want %q", c.query, code, stderr, c.want)
		}
	}
}

// TestCombineDefault: without --combine, query combines as the rule files'
// @aggregate directive says for the predicate; explain notes it.
func TestCombineDefault(t *testing.T) {
	db := loadedDB(t, "a\tp\tb\na\tq\tb\na\to\tb\n")
	dir := t.TempDir()
	rules := "0.3 :: r(X, Y) :- o(X, Y).\n0.5 :: r(X, Y) :- p(X, Y).\n0.4 :: r(X, Y) :- q(X, Y).\n"
	noisy := writeFile(t, dir, "noisy.dl", "@aggregate noisy_or(top = 2) for r.\n"+rules)
	grouped := writeFile(t, dir, "grouped.dl", "@aggregate grouped(threshold = 0.3).\n"+rules)
	plain := writeFile(t, dir, "plain.dl", rules)
	cases := []struct {
		args []string
		want string
	}{
		// top 2: 1 - 0.5 * 0.6 = 0.7; grouped as noisy-or over the top 5
		// (all three): 1 - 0.5 * 0.6 * 0.7 = 0.79; max: 0.5.
		{[]string{"--rules", noisy}, "0.7"},
		{[]string{"--rules", noisy, "--combine", "max"}, "0.5"},
		{[]string{"--rules", grouped}, "0.79"},
		{[]string{"--rules", plain}, "0.5"},
		{[]string{"--rules", plain, "--combine", "noisy-or"}, "0.79"},
	}
	for _, c := range cases {
		out, stderr, code := runCLI(t, "", append([]string{"--db", db, "-q", "query", "r(a, b)?", "--format", "tsv"}, c.args...)...)
		if code != 0 || out != "true "+c.want+"\n" {
			t.Errorf("%v: exit %d, %q %s; want true %s", c.args, code, out, stderr, c.want)
		}
	}
	note := "note: the rule files rank r facts by noisy_or(top = 2) over several rules' derivations; this is the best single derivation\n"
	out, _, code := runCLI(t, "", "--db", db, "explain", "--rules", noisy, "r(a, b)")
	if code != 0 || !strings.HasSuffix(out, note) || !strings.HasPrefix(out, "r(a, b)  [0.5]") {
		t.Errorf("explain with noisy_or: exit %d\n%s\nwant the best proof (0.5) and %q under it", code, out, note)
	}
	out, _, _ = runCLI(t, "", "--db", db, "explain", "--rules", plain, "r(a, b)")
	if strings.Contains(out, "note:") {
		t.Errorf("explain without a directive has a note:\n%s", out)
	}
}

// TestExplainHelpExamples: the examples of explain --help run in the
// walkthrough transcript (which checks they succeed).
func TestExplainHelpExamples(t *testing.T) {
	script, err := os.ReadFile("testdata/walkthrough.script")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("testdata/walkthrough.golden")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(explainCmd{}.Help(), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "drumql explain") {
			continue
		}
		n++
		cmd := strings.Replace(line, "drumql ", "drumql --db $DB ", 1)
		cmd = strings.ReplaceAll(cmd, " families.dl", " $TMP/families.dl")
		if !strings.Contains(string(script), cmd+"\n") {
			t.Errorf("the example %q is not in the walkthrough as %q", line, cmd)
			continue
		}
		i := strings.Index(string(golden), "$ "+cmd+"\n")
		if i < 0 {
			t.Errorf("%q is not in the golden transcript", cmd)
			continue
		}
		rest := string(golden[i:])
		if j := strings.Index(rest, "[exit "); j < 0 || !strings.HasPrefix(rest[j:], "[exit 0]") {
			t.Errorf("%q does not exit 0 in the transcript", cmd)
		}
	}
	if n == 0 {
		t.Fatal("no examples in explain --help")
	}
}

// TestStreamedAnswers: --unordered prints the same answers as the sorted
// output, in some order; --top N prints the first N lines of the sorted
// output (the bounded heap keeps the same order, ties by values).
func TestStreamedAnswers(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	for i := range 12 {
		fmt.Fprintf(&src, "0.%d :: e(n%d, n%d).\n", 9-i%3, i, i+1)
	}
	src.WriteString("path(X, Y) :- e(X, Y).\npath(X, Z) :- path(X, Y), e(Y, Z).\n")
	prog := writeFile(t, dir, "p.dl", src.String())
	db := filepath.Join(dir, "none")
	run := func(args ...string) string {
		t.Helper()
		out, stderr, code := runCLI(t, "", append([]string{"--db", db, "query", "--min", "1e-4", "--rules", prog, "path(X, Y)?"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return out
	}
	full := strings.Split(strings.TrimSuffix(run("--format", "tsv"), "\n"), "\n")
	if len(full) != 1+12*13/2 {
		t.Fatalf("%d lines, want a header and 78 paths", len(full))
	}
	unordered := strings.Split(strings.TrimSuffix(run("--format", "tsv", "--unordered"), "\n"), "\n")
	a, b := slices.Clone(full[1:]), slices.Clone(unordered[1:])
	slices.Sort(a)
	slices.Sort(b)
	if unordered[0] != full[0] || !slices.Equal(a, b) {
		t.Errorf("--unordered answers differ from the sorted ones")
	}
	for _, n := range []int{1, 5, 40} {
		top := strings.Split(strings.TrimSuffix(run("--format", "tsv", "--top", fmt.Sprint(n)), "\n"), "\n")
		if !slices.Equal(top, full[:n+1]) {
			t.Errorf("--top %d:\n%v\nwant\n%v", n, top, full[:n+1])
		}
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(run("--format", "json", "--unordered")), &rows); err != nil || len(rows) != 78 {
		t.Errorf("--unordered --format json: %d rows, %v", len(rows), err)
	}
	if got := run("--unordered", "--top", "2"); len(strings.Split(strings.TrimSuffix(got, "\n"), "\n")) != 3 {
		t.Errorf("--unordered --top 2 printed\n%s", got)
	}
}

// TestInferMaxMemory: an infer over --max-memory stops with exit 1 and an
// error that names the flag, and the store keeps its derived facts; with
// --max-memory off the same infer succeeds.
func TestInferMaxMemory(t *testing.T) {
	var tsv strings.Builder
	for i := range 30 {
		fmt.Fprintf(&tsv, "v%d\te\tv%d\n", i, i+1)
	}
	db := loadedDB(t, tsv.String())
	dir := t.TempDir()
	small := writeFile(t, dir, "small.dl", "p(X, Y) :- e(X, Y).\n")
	big := writeFile(t, dir, "big.dl", "p(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), e(Y, Z).\n")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "infer", small); code != 0 {
		t.Fatalf("infer: exit %d: %s", code, stderr)
	}
	before, _, _ := runCLI(t, "", "--db", db, "query", "--format", "tsv", "p(X, Y)?")
	if n := strings.Count(before, "\n"); n < 30 {
		t.Fatalf("query after the first infer: %d lines:\n%s", n, before)
	}
	_, stderr, code := runCLI(t, "", "--db", db, "-q", "infer", "--max-memory", "1M", big)
	if code != 1 || !strings.Contains(stderr, "more than the --max-memory (1 MB)") || !strings.Contains(stderr, "the store is unchanged") {
		t.Fatalf("infer --max-memory 1M: exit %d, stderr:\n%s", code, stderr)
	}
	if after, _, _ := runCLI(t, "", "--db", db, "query", "--format", "tsv", "p(X, Y)?"); after != before {
		t.Errorf("derived facts changed by the failed infer:\n%s\nwant\n%s", after, before)
	}
	// An update (the store has the first infer's facts): 465 - 30 more.
	out, stderr, code := runCLI(t, "", "--db", db, "-q", "infer", "--max-memory", "off", big)
	if code != 0 || !strings.HasPrefix(out, "+435 −0 ~0 derived facts") {
		t.Fatalf("infer --max-memory off: exit %d, stdout %q, stderr %s", code, out, stderr)
	}
}

// TestErrorsNamePackageOnce: the messages the CLI prints for an infer over
// --max-facts and for a cancelled query name the reasoner once (they read
// "infer: reasoner: infer: reasoner: 11 facts derived ...: reasoner: too
// many facts" and "reasoner: query ...: reasoner: context canceled").
func TestErrorsNamePackageOnce(t *testing.T) {
	var tsv strings.Builder
	for i := range 30 {
		fmt.Fprintf(&tsv, "v%d\te\tv%d\n", i, i+1)
	}
	db := loadedDB(t, tsv.String())
	tc := writeFile(t, t.TempDir(), "tc.dl", "p(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), e(Y, Z).\n")
	_, stderr, code := runCLI(t, "", "--db", db, "-q", "infer", "--max-facts", "40", tc)
	if code != 1 || strings.Count(stderr, "reasoner:") != 1 || !strings.Contains(stderr, "too many facts (--max-facts)") ||
		!strings.Contains(stderr, "the store is unchanged") || strings.Contains(stderr, "infer: reasoner: infer") {
		t.Errorf("infer --max-facts 40: exit %d, stderr:\n%s", code, stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, errb bytes.Buffer
	code = run(ctx, []string{"--db", db, "-q", "query", "--rules", tc, "p(X, Y)?"}, strings.NewReader(""), &stdout, &errb)
	if code != 1 || strings.Count(errb.String(), "reasoner:") != 1 || !strings.Contains(errb.String(), "context canceled") {
		t.Errorf("cancelled query: exit %d, stderr:\n%s", code, errb.String())
	}
}

// brokenPipe is a stdout whose reader has gone (SIGPIPE ignored).
type brokenPipe struct{ writes int }

func (b *brokenPipe) Write([]byte) (int, error) {
	b.writes++
	return 0, syscall.EPIPE
}

// TestUnorderedBrokenPipe: --unordered into a closed pipe stops at the
// first failed write and reports it (exit 1), without another write.
func TestUnorderedBrokenPipe(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "p.dl", "e(a, b).\ne(b, c).\ne(c, a).\npath(X, Y) :- e(X, Y).\npath(X, Z) :- path(X, Y), e(Y, Z).\n")
	var out brokenPipe
	var errb bytes.Buffer
	code := run(context.Background(), []string{"--db", filepath.Join(dir, "none"), "query", "--rules", prog, "--unordered", "path(X, Y)?"},
		strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "broken pipe") || out.writes != 1 {
		t.Errorf("exit %d after %d writes, stderr %q", code, out.writes, errb.String())
	}
}
