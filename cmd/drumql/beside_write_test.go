package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// besideStores returns a store held by a running serve (with the token
// s3cret and the rules of rules) and a copy of it that no server holds,
// both loaded with tsv, the copy with the rules' facts inferred as the
// server stores them.
func besideStores(t *testing.T, tsv, rules string) (served, alone string) {
	t.Helper()
	served, alone = loadedDB(t, tsv), loadedDB(t, tsv)
	prog := writeFile(t, t.TempDir(), "rules.dl", rules)
	if _, stderr, code := runCLI(t, "", "--db", alone, "-q", "infer", prog); code != 0 {
		t.Fatalf("infer: exit %d: %s", code, stderr)
	}
	startServe(t, "--db", served, "-q", "serve", "--addr", "127.0.0.1:0", "--token", "s3cret", prog)
	return served, alone
}

// sameBeside runs args on the served store and on the copy and fails
// unless both print the same (the store's path, its size on disk and its
// materialisation image aside: two stores) and exit alike.
func sameBeside(t *testing.T, served, alone string, args ...string) {
	t.Helper()
	out1, err1, code1 := runCLI(t, "", append([]string{"--db", served}, args...)...)
	out2, err2, code2 := runCLI(t, "", append([]string{"--db", alone}, args...)...)
	out1 = imageInfo.ReplaceAllString(diskSize.ReplaceAllString(strings.ReplaceAll(out1, served, "DB"), "SIZE"), "")
	out2 = imageInfo.ReplaceAllString(diskSize.ReplaceAllString(strings.ReplaceAll(out2, alone, "DB"), "SIZE"), "")
	if out1 != out2 || code1 != code2 {
		t.Errorf("%v: beside serve (exit %d)\n%s%s\nalone (exit %d)\n%s%s", args, code1, out1, err1, code2, out2, err2)
	}
}

// imageInfo is the materialisation image in the output of stats, which
// infer's updates write at once and the server a second after its last
// update: either store may have one.
var imageInfo = regexp.MustCompile(`(?m)^image: .*\n|,\n  "image": \{[^}]*\}`)

// diskSize is a store's size on disk in the output of stats.
var diskSize = regexp.MustCompile(`(?m)(on disk: .*|"(disk|reclaimable)_bytes": \d+,?)$`)

// TestServeLoadRetract: load and retract beside serve send the files'
// contents to the server, with the token of DRUMQL_TOKEN, and print and
// exit as they do on a store no server holds; the server's readers see the
// change at once (its derived facts follow).
func TestServeLoadRetract(t *testing.T) {
	served, alone := besideStores(t, "marc_ueda\thusband\talice_ortiz\n", "0.8 :: wife(A, B) :- husband(B, A).\n")
	dir := t.TempDir()
	more := writeFile(t, dir, "more.tsv", "bob\thusband\tcarol\ndan\thusband\terin\n")
	nt := writeFile(t, dir, "more.nt", "<fred> <husband> <gina> .\n")
	bad := writeFile(t, dir, "bad.tsv", "ok\thusband\tfine\nonly two\tfields\n")
	wrong := writeFile(t, dir, "wrong.tsv", "dan\thusband\terin\nnobody\thusband\tnone\n")
	// without the token the server refuses the write: not the input's fault
	if _, stderr, code := runCLI(t, "", "--db", served, "load", more); code != 1 || !strings.Contains(stderr, "Authorization") {
		t.Fatalf("load beside serve without the token: exit %d: %s", code, stderr)
	}
	t.Setenv("DRUMQL_TOKEN", "s3cret")
	for _, args := range [][]string{
		{"load", more, nt},
		{"load", more}, // already present
		{"load", more, bad},
		{"load", filepath.Join(dir, "missing.tsv")},
		{"retract", wrong},
		{"retract", bad},
		{"query", "husband(X, Y)?"},
	} {
		sameBeside(t, served, alone, args...)
	}
	// the server derived from the loaded facts, and forgot the retracted
	out, stderr, code := runCLI(t, "", "--db", served, "query", "wife(X, Y)?")
	if code != 0 || !strings.Contains(out, "carol") || !strings.Contains(out, "gina") || strings.Contains(out, "erin") {
		t.Errorf("wife(X, Y)? beside serve after load and retract: exit %d\n%s%s", code, out, stderr)
	}
}

// TestServeExplain: explain beside serve asks the server for the proof
// and prints it, and fails, as it does on a store no server holds that
// infer brought up to date.
func TestServeExplain(t *testing.T) {
	served, alone := besideStores(t, "marc_ueda\thusband\talice_ortiz\nbob\tfather\tcarol\n",
		"0.8 :: wife(A, B) :- husband(B, A).\n0.5 :: parent(A, B) :- father(A, B).\n0.9 :: kin(A, B) :- wife(A, B).\n")
	for _, args := range [][]string{
		{"explain", "kin(alice_ortiz, marc_ueda)"},
		{"explain", "--format", "json", "kin(alice_ortiz, marc_ueda)"},
		{"explain", "husband(marc_ueda, alice_ortiz)"},
		{"explain", "parent(bob, carol)"},
		{"explain", "wife(marc_ueda, alice_ortiz)"}, // does not hold: exit 1
		{"explain", "wief(a, b)"},                   // nothing defines wief: exit 1
		{"explain", "wife(X, marc_ueda)"},           // not a fact: exit 2
		{"explain", "wife(a"},                       // exit 2
		{"explain", "wife(a)"},                      // exit 2
	} {
		sameBeside(t, served, alone, args...)
	}
}

// TestServeStats: stats beside serve asks the server for the store's
// summary and prints it as it does on a store no server holds, before
// and after a load through the server.
func TestServeStats(t *testing.T) {
	served, alone := besideStores(t, "marc_ueda\thusband\talice_ortiz\n", "0.8 :: wife(A, B) :- husband(B, A).\n")
	t.Setenv("DRUMQL_TOKEN", "s3cret")
	more := writeFile(t, t.TempDir(), "more.tsv", "bob\thusband\tcarol\n")
	for _, args := range [][]string{{"stats"}, {"stats", "--format", "json"}, {"-q", "load", more}} {
		sameBeside(t, served, alone, args...)
	}
	// the server keeps its derived facts up to date: infer does on the copy
	if _, stderr, code := runCLI(t, "", "--db", alone, "-q", "infer", writeFile(t, t.TempDir(), "rules.dl", "0.8 :: wife(A, B) :- husband(B, A).\n")); code != 0 {
		t.Fatalf("infer: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{{"stats"}, {"stats", "--format", "json"}} {
		sameBeside(t, served, alone, args...)
	}
}

// TestServeLoadTooLarge: files larger than the server's --max-body are
// refused whole, the limit named: nothing is loaded.
func TestServeLoadTooLarge(t *testing.T) {
	db := loadedDB(t, "marc_ueda\thusband\talice_ortiz\n")
	startServe(t, "--db", db, "-q", "serve", "--addr", "127.0.0.1:0", "--max-body", "1K")
	var big strings.Builder
	for i := 0; big.Len() < 1<<20; i++ {
		fmt.Fprintf(&big, "e%d\thusband\tf%d\n", i, i)
	}
	_, stderr, code := runCLI(t, "", "--db", db, "load", writeFile(t, t.TempDir(), "big.tsv", big.String()))
	if code != 1 || !strings.Contains(stderr, "--max-body") {
		t.Errorf("a load over --max-body beside serve: exit %d: %s", code, stderr)
	}
	if out, _, _ := runCLI(t, "", "--db", db, "query", "husband(e1, X)?"); strings.Contains(out, "f1") {
		t.Errorf("a load over --max-body loaded: %s", out)
	}
}
