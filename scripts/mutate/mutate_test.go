package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (path -> content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, s := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// locateCases are where a snippet is found, or why not.
var locateCases = []struct {
	name   string
	file   string
	old    string
	want   string // the file it applies to, "" when not found
	moved  bool
	result string // the mutated file
}{
	{"in its file", "a/a.go", "x >= 0", "a/a.go", false, "package a\n\nvar _ = x > 0\n"},
	{"twice in its file", "a/two.go", "y", "", false, ""},
	{"absent from its file", "a/a.go", "z < 1", "", false, ""},
	{"moved", "old/gone.go", "moved >= 1", "b/b.go", true, "package b\n\nvar _ = moved > 1\n"},
	{"moved, in two files", "old/gone.go", "common", "", false, ""},
	{"moved, only in testdata", "old/gone.go", "hidden >= 2", "", false, ""},
}

// TestLocate checks locate and the mutated file on each of locateCases.
func TestLocate(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a/a.go":               "package a\n\nvar _ = x >= 0\n",
		"a/two.go":             "package a\n\nvar y, _ = y, common\n",
		"b/b.go":               "package b\n\nvar _ = moved >= 1\n",
		"c/c.go":               "package c\n\nvar _ = common\n",
		"c/testdata/t.go":      "package t\n\nvar _ = hidden >= 2\n",
		"c/.hidden/hidden.go":  "package h\n\nvar _ = hidden >= 2\n",
		"c/notes.txt":          "moved >= 1\n",
		"d/dir.go/not_a_dir.x": "",
	})
	for _, c := range locateCases {
		t.Run(c.name, func(t *testing.T) {
			m := Mutation{Name: c.name, File: c.file, Old: c.old, New: strings.ReplaceAll(c.old, ">=", ">"), Pkgs: []string{"./..."}}
			l, err := locate(root, m)
			if c.want == "" {
				if !errors.Is(err, errNotFound) {
					t.Fatalf("locate: %+v, %v; want errNotFound", l.file, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.file != c.want || l.moved != c.moved || string(l.mutated) != c.result {
				t.Errorf("located %s (moved %t):\n%s\nwant %s (moved %t):\n%s", l.file, l.moved, l.mutated, c.want, c.moved, c.result)
			}
		})
	}
}

// TestFailedTests checks the failed tests read from go test's output:
// top-level names, each once, subtests and indented lines included.
func TestFailedTests(t *testing.T) {
	out := []byte(`--- FAIL: TestB (0.01s)
    --- FAIL: TestB/sub_case (0.00s)
        x_test.go:12: bad
--- FAIL: TestA (0.00s)
--- PASS: TestC (0.00s)
FAIL
FAIL	example.com/p	0.02s
`)
	if got := strings.Join(failedTests(out), " "); got != "TestA TestB" {
		t.Errorf("failed tests %q, want %q", got, "TestA TestB")
	}
	if buildFailed(out) || !buildFailed([]byte("FAIL\texample.com/p [build failed]\n")) {
		t.Error("buildFailed")
	}
}

// TestSummary checks the counts and the exit condition of a run.
func TestSummary(t *testing.T) {
	var s summary
	s.add(Mutation{Name: "a", Must: true}, result{outcome: Caught})
	s.add(Mutation{Name: "b"}, result{outcome: Survived})
	s.add(Mutation{Name: "c", Must: true}, result{outcome: Survived})
	s.add(Mutation{Name: "d"}, result{outcome: Broken})
	want := "caught 1/3 (33.3%), 1 broken (not counted); survivors: b, c; 1 must mutations not caught\n"
	if got := s.String(); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// TestList checks the list of the repository: it loads, its names are
// unique, and it holds the ten mutations issue 47 names as must and at
// least forty others.
func TestList(t *testing.T) {
	ms, err := loadList("mutations.json")
	if err != nil {
		t.Fatal(err)
	}
	must := 0
	for _, m := range ms {
		if m.Must {
			must++
		}
	}
	if must < 10 || len(ms)-must < 40 {
		t.Errorf("%d must mutations and %d others, want at least 10 and 40", must, len(ms)-must)
	}
}

// TestLoadListErrors checks that loadList refuses a bad list.
func TestLoadListErrors(t *testing.T) {
	for _, c := range []struct{ list, want string }{
		{`[{"name": "a", "pkgs": ["./x"], "file": "f.go", "old": "a", "new": "b"}, {"name": "a", "pkgs": ["./x"], "file": "f.go", "old": "a", "new": "c"}]`, `two mutations named "a"`},
		{`[{"name": "a", "pkgs": ["./x"], "file": "f.go", "old": "a", "new": "a"}]`, "old and new are the same"},
		{`[{"name": "a", "file": "f.go", "old": "a", "new": "b"}]`, "want file, old and pkgs"},
		{`[{"pkgs": ["./x"], "file": "f.go", "old": "a", "new": "b"}]`, "has no name"},
		{`[{"name": "a", "pkgs": ["./x"], "file": "f.go", "old": "a", "new": "b", "run": "("}]`, "run: "},
		{`[{"name": "a", "pkgs": ["./x"], "file": "f.go", "old": "a", "new": "b", "bogus": 1}]`, "unknown field"},
	} {
		p := filepath.Join(t.TempDir(), "list.json")
		if err := os.WriteFile(p, []byte(c.list), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadList(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.list, err, c.want)
		}
	}
}
