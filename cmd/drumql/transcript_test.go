package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata")

// runCLI runs the CLI in-process and returns stdout, stderr and the exit code.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// repoRoot is the module root (two levels above this package).
func repoRoot(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestTranscripts runs every testdata/*.script: each non-comment line is a
// drumql command line (words split on spaces, "double quotes" group words),
// with $DB replaced by a fresh store directory, $TMP by a scratch directory and
// $ROOT by the repository root. The transcript of commands, outputs and exit
// codes must equal testdata/NAME.golden (go test -update rewrites it; review
// the diff before committing).
func TestTranscripts(t *testing.T) {
	scripts, err := filepath.Glob("testdata/*.script")
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) == 0 {
		t.Fatal("no transcripts in testdata")
	}
	root := repoRoot(t)
	for _, script := range scripts {
		name := strings.TrimSuffix(filepath.Base(script), ".script")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(script)
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			db := filepath.Join(tmp, "db")
			repl := strings.NewReplacer("$DB", db, "$TMP", tmp, "$ROOT", root)
			unrepl := strings.NewReplacer(db, "$DB", tmp, "$TMP", root, "$ROOT")
			var got strings.Builder
			for _, line := range strings.Split(string(src), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				words := splitWords(repl.Replace(line))
				if len(words) == 4 && words[0] == "edit" {
					// edit FILE "TEXT" "NEW": what a user does in an editor,
					// replace the line containing TEXT by NEW.
					editLine(t, words[1], words[2], words[3])
					fmt.Fprintf(&got, "$ %s\n[exit 0]\n", line)
					continue
				}
				if len(words) == 0 || words[0] != "drumql" {
					t.Fatalf("%s: a command line must start with drumql or be edit FILE TEXT NEW: %q", script, line)
				}
				stdout, stderr, code := runCLI(t, "", words[1:]...)
				fmt.Fprintf(&got, "$ %s\n", line)
				// The size on disk depends on the file system.
				// So does the time an update took.
				out := diskLine.ReplaceAllString(unrepl.Replace(stdout), "${1}SIZE")
				got.WriteString(updateTime.ReplaceAllString(out, "${1}T ("))
				if stderr != "" {
					fmt.Fprintf(&got, "[stderr]\n%s", unrepl.Replace(stderr))
				}
				fmt.Fprintf(&got, "[exit %d]\n", code)
			}
			golden := strings.TrimSuffix(script, ".script") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update and review the result)", err)
			}
			if got.String() != string(want) {
				t.Errorf("transcript %s differs from %s:\n--- got\n%s\n--- want\n%s", name, golden, got.String(), want)
			}
		})
	}
}

// editLine replaces the one line of file that contains text by repl.
func editLine(t *testing.T, file, text, repl string) {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	n := 0
	for i, l := range lines {
		if strings.Contains(l, text) {
			lines[i] = repl
			n++
		}
	}
	if n != 1 {
		t.Fatalf("edit %s: %d lines contain %q, want 1", file, n, text)
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// splitWords splits a command line on spaces, keeping "quoted words" whole.
func splitWords(s string) []string {
	var words []string
	var cur strings.Builder
	inQuote, have := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
			have = true
		case r == ' ' && !inQuote:
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		words = append(words, cur.String())
	}
	return words
}

// diskLine is the size on disk in drumql stats (of the store, and of its
// materialisation image), which transcripts do not pin.
var diskLine = regexp.MustCompile(`(?m)^((?:on disk|image):\s+)[^,\n]*`)

// updateTime matches the time in the line of an incremental infer ("+1 −2
// ~3 derived facts in 41 ms (incremental, ...").
var updateTime = regexp.MustCompile(`(?m)^(\+\d+ −\d+ ~\d+ derived facts in )[0-9.]+ ?[mµn]?s \(`)
