package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestInferTrace: infer --trace writes progress lines on stderr although it
// is not a terminal, with facts derived never decreasing, the last of them
// the facts infer reports; without the flag it writes none.
func TestInferTrace(t *testing.T) {
	tmp := t.TempDir()
	var tsv strings.Builder
	for i := range 40 {
		tsv.WriteString("n" + strconv.Itoa(i) + "\te\tn" + strconv.Itoa(i+1) + "\n")
	}
	db := loadTSV(t, tmp, tsv.String())
	rules := filepath.Join(tmp, "p.dl")
	if err := os.WriteFile(rules, []byte("p(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), e(Y, Z).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "", "--db", db, "infer", "--trace", rules)
	if code != 0 {
		t.Fatalf("infer --trace: exit %d: %s", code, stderr)
	}
	line := regexp.MustCompile(`(?m)^trace: round (\d+), (\d+) facts derived, (\d+) joins, .* in use, .*$`)
	ms := line.FindAllStringSubmatch(stderr, -1)
	if len(ms) == 0 {
		t.Fatalf("no trace line on stderr:\n%s", stderr)
	}
	last := -1
	for _, m := range ms {
		n, _ := strconv.Atoi(m[2])
		if n < last {
			t.Errorf("facts derived went down: %d after %d", n, last)
		}
		last = n
	}
	// 40 edges: the closure has 40*41/2 = 820 pairs
	if !strings.Contains(stdout, "derived 820 facts") || last != 820 {
		t.Errorf("the last trace line says %d facts; infer said:\n%s", last, stdout)
	}
	_, stderr, _ = runCLI(t, "", "--db", db, "infer", rules)
	if strings.Contains(stderr, "trace:") {
		t.Errorf("infer without --trace traced:\n%s", stderr)
	}
}

// TestQueryMaxMemory: a query's evaluation is capped like infer's: over
// the cap it stops with an error naming the flag (exit 1); a bad size is a
// usage error; without the flag it answers.
func TestQueryMaxMemory(t *testing.T) {
	tmp := t.TempDir()
	db := loadTSV(t, tmp, "a\te\tb\nb\te\tc\n")
	rules := filepath.Join(tmp, "p.dl")
	if err := os.WriteFile(rules, []byte("p(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), e(Y, Z).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "", "--db", db, "query", "--rules", rules, "p(a, X)?", "--format", "tsv")
	if code != 0 || out != "X\tconfidence\nb\t1\nc\t1\n" {
		t.Fatalf("query: exit %d, %q, %s", code, out, stderr)
	}
	// Any Go program holds more than 64 KiB.
	_, stderr, code = runCLI(t, "", "--db", db, "query", "--rules", rules, "p(a, X)?", "--max-memory", "64K")
	if code != 1 || !strings.Contains(stderr, "more than the cap of") || !strings.Contains(stderr, "--max-memory") {
		t.Errorf("query --max-memory 64K: exit %d, stderr %q; want exit 1 naming the cap", code, stderr)
	}
	_, stderr, code = runCLI(t, "", "--db", db, "query", "--rules", rules, "p(a, X)?", "--max-memory", "lots")
	if code != 2 || !strings.Contains(stderr, "--max-memory lots") {
		t.Errorf("query --max-memory lots: exit %d, stderr %q; want a usage error", code, stderr)
	}
}
