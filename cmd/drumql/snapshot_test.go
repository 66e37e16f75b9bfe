package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMineSnapshot mines a store and its snapshot file and compares the
// files (all but the header line, which names the source: the rules and
// the aggregation chosen on the valid split) and the saved models byte for
// byte; a damaged file is refused naming the file.
func TestMineSnapshot(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "db")
	data := filepath.Join(repoRoot(t), "examples", "families")
	if _, stderr, code := runCLI(t, "", "--db", db, "load", data); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	snap := filepath.Join(tmp, "g.snap")
	if _, stderr, code := runCLI(t, "", "--db", db, "-q", "snapshot", "--out", snap); code != 0 {
		t.Fatalf("snapshot: exit %d: %s", code, stderr)
	}
	// The aggregation is chosen on the valid split, from the store or from
	// the snapshot file alike.
	args := []string{"-q", "mine", "--heads", "wife,husband", "--epochs", "2"}
	fromStore, stderr, code := runCLI(t, "", append([]string{"--db", db}, append(args, "--save-model", filepath.Join(tmp, "a"))...)...)
	if code != 0 {
		t.Fatalf("mine: exit %d: %s", code, stderr)
	}
	// No store at all: --db points nowhere.
	fromFile, stderr, code := runCLI(t, "", append([]string{"--db", filepath.Join(tmp, "none")}, append(args, "--snapshot", snap, "--save-model", filepath.Join(tmp, "b"))...)...)
	if code != 0 {
		t.Fatalf("mine --snapshot: exit %d: %s", code, stderr)
	}
	body := func(s string) string { return s[strings.Index(s, "\n"):] }
	if !strings.Contains(fromStore, "wife(A, B) :-") || !strings.Contains(fromStore, "\n% aggregation ") || body(fromStore) != body(fromFile) {
		t.Errorf("mine --snapshot wrote\n%s\nmine wrote\n%s", fromFile, fromStore)
	}
	if !strings.Contains(fromFile, "from "+snap) {
		t.Errorf("header does not name the snapshot file:\n%s", fromFile)
	}
	a, _ := os.ReadFile(filepath.Join(tmp, "a"))
	b, _ := os.ReadFile(filepath.Join(tmp, "b"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("models differ (%d and %d bytes)", len(a), len(b))
	}
	raw, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 1
	bad := filepath.Join(tmp, "bad.snap")
	if err := os.WriteFile(bad, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "", "mine", "--snapshot", bad); code != 2 || !strings.Contains(stderr, bad) || !strings.Contains(stderr, "snapshot") {
		t.Errorf("damaged snapshot: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "mine", "--snapshot", snap, "--eval"); code != 2 || !strings.Contains(stderr, "--eval") {
		t.Errorf("--snapshot --eval: exit %d: %s", code, stderr)
	}
}
