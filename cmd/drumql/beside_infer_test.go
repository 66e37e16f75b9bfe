package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestServeInfer: infer beside serve asks the server whether its files
// are the server's program (remote.Infer, POST /v1/infer): the same rules
// in another order print and exit as a second infer of them prints on a
// store no server holds (nothing to update); rules the server does not run,
// or another threshold, are refused with the server's 409 and change
// nothing; without the token the server refuses the request.
func TestServeInfer(t *testing.T) {
	rules := "0.8 :: wife(A, B) :- husband(B, A).\n0.6 :: spouse(A, B) :- husband(A, B).\n"
	served, alone := besideStores(t, "marc_ueda\thusband\talice_ortiz\n", rules)
	dir := t.TempDir()
	same := writeFile(t, dir, "same.dl", "0.6 :: spouse(X, Y) :- husband(X, Y).\n0.8 :: wife(A, B) :- husband(B, A).\n")
	other := writeFile(t, dir, "other.dl", "0.7 :: wife(A, B) :- husband(B, A).\n0.6 :: spouse(A, B) :- husband(A, B).\n")
	if _, stderr, code := runCLI(t, "", "--db", served, "infer", same); code != 1 || !strings.Contains(stderr, "Authorization") {
		t.Fatalf("infer beside serve without the token: exit %d: %s", code, stderr)
	}
	t.Setenv("DRUMQL_TOKEN", "s3cret")
	took := regexp.MustCompile(` in [0-9.]+ ?[µm]?s `)
	// the copy's program becomes same's (an update that changes nothing)
	if _, stderr, code := runCLI(t, "", "--db", alone, "-q", "infer", same); code != 0 {
		t.Fatalf("infer: exit %d: %s", code, stderr)
	}
	out1, err1, code1 := runCLI(t, "", "--db", served, "infer", same)
	out2, err2, code2 := runCLI(t, "", "--db", alone, "infer", same)
	out1 = took.ReplaceAllString(strings.ReplaceAll(out1, served, "DB"), " in T ")
	out2 = took.ReplaceAllString(strings.ReplaceAll(out2, alone, "DB"), " in T ")
	if code1 != 0 || out1 != out2 || code1 != code2 || !strings.Contains(out1, "nothing to update") {
		t.Errorf("infer of the same program: beside serve (exit %d)\n%s%s\nalone (exit %d)\n%s%s", code1, out1, err1, code2, out2, err2)
	}
	before, _, _ := runCLI(t, "", "--db", served, "query", "wife(X, Y)?")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"infer", other}, "the rule files are not the program serve runs"},
		{[]string{"infer", "--min", "0.5", same}, "the threshold of the rule files (0.5) is not the one serve materialises its program at (none: exact)"},
	} {
		if _, stderr, code := runCLI(t, "", append([]string{"--db", served}, c.args...)...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v beside serve: exit %d, want 2: %s", c.args, code, stderr)
		}
	}
	if after, _, _ := runCLI(t, "", "--db", served, "query", "wife(X, Y)?"); after != before || !strings.Contains(after, "0.8") {
		t.Errorf("after the refused infers:\n%s\nbefore:\n%s", after, before)
	}
}
