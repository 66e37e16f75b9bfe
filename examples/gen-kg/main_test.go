package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTailLeavesTheRestAlone: -tail adds its relations' facts and names,
// and every other line of every file is the same as without it.
func TestTailLeavesTheRestAlone(t *testing.T) {
	plain, tailed := t.TempDir(), t.TempDir()
	if err := generate(plain, 400, 1, 0, 50); err != nil {
		t.Fatal(err)
	}
	if err := generate(tailed, 400, 1, 3, 7); err != nil {
		t.Fatal(err)
	}
	added := 0
	for _, name := range []string{"facts", "train", "valid", "test", "entities", "relations"} {
		a, err := os.ReadFile(filepath.Join(plain, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(tailed, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for line := range strings.SplitSeq(string(b), "\n") {
			if strings.Contains(line, "tail0") {
				added++
				continue
			}
			kept = append(kept, line)
		}
		if strings.Join(kept, "\n") != string(a) {
			t.Errorf("%s.txt: the lines other than the tail's differ", name)
		}
	}
	if added != 3+3*7 {
		t.Errorf("%d tail lines, want 3 relation names and 21 facts", added)
	}
}
