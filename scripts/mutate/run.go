package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Outcome is the result of testing one mutation.
type Outcome int

// The outcomes of a mutation.
const (
	Caught   Outcome = iota // a test failed
	Survived                // every test passed
	Broken                  // the mutation could not be applied or does not build
)

// result is what testing one mutation gave.
type result struct {
	outcome Outcome
	failed  []string // the top-level tests that failed; "(build)" etc.
	output  []byte   // go test's output
	took    time.Duration
}

// failRe matches a failed test in go test's output.
var failRe = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// failedTests returns the top-level tests that failed in go test's output,
// sorted, each once.
func failedTests(out []byte) []string {
	var names []string
	for _, m := range failRe.FindAllSubmatch(out, -1) {
		name, _, _ := strings.Cut(string(m[1]), "/")
		names = append(names, name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// buildFailed reports whether go test's output says a package did not
// build.
func buildFailed(out []byte) bool {
	return bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]"))
}

// runMutation runs the tests of m with the mutated file l in place of the
// original, through go test's -overlay, from root.
func runMutation(ctx context.Context, root, tmp string, m Mutation, l located, timeout time.Duration) (result, error) {
	start := time.Now()
	mutated := filepath.Join(tmp, "mutated.go")
	if err := os.WriteFile(mutated, l.mutated, 0o644); err != nil {
		return result{}, err
	}
	abs, err := filepath.Abs(filepath.Join(root, filepath.FromSlash(l.file)))
	if err != nil {
		return result{}, err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {abs: mutated}})
	if err != nil {
		return result{}, err
	}
	ov := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		return result{}, err
	}
	args := []string{"test", "-count=1", "-overlay", ov, "-timeout", timeout.String()}
	if m.Run != "" {
		args = append(args, "-run", m.Run)
	}
	args = append(args, m.Pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	r := result{output: out, took: time.Since(start)}
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	switch {
	case err == nil:
		r.outcome = Survived
	case buildFailed(out):
		r.outcome, r.failed = Broken, []string{"(does not build)"}
	default:
		r.outcome, r.failed = Caught, failedTests(out)
		if len(r.failed) == 0 {
			r.failed = []string{"(the test binary failed: " + firstLine(out) + ")"}
		}
	}
	return r, nil
}

// firstLine returns the first line of out that says why a test binary
// failed (a panic, a timeout), or its first line.
func firstLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "panic:") || strings.Contains(l, "test timed out") {
			return l
		}
	}
	return lines[0]
}
