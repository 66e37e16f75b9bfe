package server

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestRuleFiles(t *testing.T) {
	dir := t.TempDir()
	if got, want := EditsFile("", filepath.Join(dir, "kg.db")+"/"), filepath.Join(dir, "kg.db", "edits.dl"); got != want {
		t.Errorf("EditsFile = %s, want %s", got, want)
	}
	if got := EditsFile("mine.dl", dir); got != "mine.dl" {
		t.Errorf("EditsFile with --edits = %s", got)
	}
	rules, edits := filepath.Join(dir, "rules.dl"), filepath.Join(dir, "edits.dl")
	if err := os.WriteFile(rules, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{rules}
	if got := RuleFiles(files, edits); !slices.Equal(got, files) {
		t.Errorf("RuleFiles without an edits file = %v, want %v", got, files)
	}
	if err := os.WriteFile(edits, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := RuleFiles(files, edits), []string{rules, edits}; !slices.Equal(got, want) {
		t.Errorf("RuleFiles with an edits file = %v, want %v", got, want)
	}
	if len(files) != 1 {
		t.Errorf("RuleFiles changed its argument: %v", files)
	}
	// The edits file given already, under another name: not twice.
	alias := filepath.Join(dir, "alias.dl")
	if err := os.Link(edits, alias); err != nil {
		t.Skip(err)
	}
	other := []string{rules, alias}
	if got := RuleFiles(other, edits); !slices.Equal(got, other) {
		t.Errorf("RuleFiles with the edits file listed = %v, want %v", got, other)
	}
}
