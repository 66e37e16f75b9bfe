package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// minFlagCases are --min values at the edges of (0, 1]: want is the
// error on stderr, "" for none.
var minFlagCases = []struct {
	min, want string
}{
	{"1", ""},
	{"0.5", ""},
	{"1e-300", ""},
	{"1.0000001", "--min 1.0000001: a confidence threshold must be in (0, 1]"},
	{"0", "--min 0: a confidence threshold must be in (0, 1]"},
	{"-0.5", "--min -0.5: a confidence threshold must be in (0, 1]"},
	{"NaN", "--min NaN: a confidence threshold must be in (0, 1]"},
}

// TestMinFlag runs query --min with each value of minFlagCases over a
// program of one fact (no store).
func TestMinFlag(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "p.dl", "p(a).\n")
	for _, c := range minFlagCases {
		out, stderr, code := runCLI(t, "", "--db", filepath.Join(dir, "none"), "query", "--rules", prog, "p(X)?", "--format", "tsv", "--min="+c.min)
		if c.want == "" {
			if code != 0 || out != "X\tconfidence\na\t1\n" {
				t.Errorf("--min %s: exit %d, stdout %q, stderr %q", c.min, code, out, stderr)
			}
			continue
		}
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("--min %s: exit %d, stderr %q, want %q", c.min, code, stderr, c.want)
		}
	}
}
