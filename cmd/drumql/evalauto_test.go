package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEvalCombineAuto checks eval --combine auto: it says what it chose on
// valid (a line of the table format, a field of JSON), ranks the test split
// exactly as the rule file with the chosen directives written in does, and
// refuses to choose and score on valid.
func TestEvalCombineAuto(t *testing.T) {
	data := policyDataset(t, 2)
	rules := filepath.Join(t.TempDir(), "t.dl")
	if err := os.WriteFile(rules, []byte("@aggregate max.\n"+policyRules), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "", "-q", "eval", "--data", data, "--rules", rules, "--combine", "auto", "--format", "json")
	if code != 0 {
		t.Fatalf("eval --combine auto: %s", stderr)
	}
	var got struct {
		Expected    struct{ MRR float64 }
		Combination *struct {
			Directive    string
			Relations    map[string]string
			ValidQueries int     `json:"valid_queries"`
			ValidMRR     float64 `json:"valid_mrr"`
			Candidates   []struct {
				Directive string
				ValidMRR  float64 `json:"valid_mrr"`
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || got.Combination == nil {
		t.Fatalf("%v, %+v:\n%s", err, got, stdout)
	}
	c := got.Combination
	if c.Directive == "" || c.ValidQueries == 0 || c.ValidMRR <= 0 {
		t.Errorf("combination %+v", c)
	}
	grouped := 0
	for _, cand := range c.Candidates {
		if cand.ValidMRR > c.ValidMRR+1e-12 {
			t.Errorf("candidate %+v above the choice's valid MRR %v", cand, c.ValidMRR)
		}
		if strings.HasPrefix(cand.Directive, "grouped(threshold = ") {
			grouped++
		}
	}
	if len(c.Candidates) < 12 || grouped < 6 {
		t.Errorf("candidates %+v: want max, noisy-or and grouped at several thresholds", c.Candidates)
	}
	// The chosen directives, written in the file in place of its own.
	chosen := fmt.Sprintf("@aggregate %s.\n", c.Directive)
	rels := make([]string, 0, len(c.Relations))
	for r := range c.Relations {
		rels = append(rels, r)
	}
	slices.Sort(rels)
	for _, r := range rels {
		chosen += fmt.Sprintf("@aggregate %s for %s.\n", c.Relations[r], r)
	}
	fixed := filepath.Join(t.TempDir(), "chosen.dl")
	if err := os.WriteFile(fixed, []byte(chosen+policyRules), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runCLI(t, "", "-q", "eval", "--data", data, "--rules", fixed, "--format", "json")
	if code != 0 {
		t.Fatalf("eval of the chosen directives: %s", stderr)
	}
	var want struct{ Expected struct{ MRR float64 } }
	if err := json.Unmarshal([]byte(stdout), &want); err != nil {
		t.Fatal(err)
	}
	if got.Expected.MRR != want.Expected.MRR {
		t.Errorf("test MRR %v with --combine auto, %v with its directives in the file:\n%s", got.Expected.MRR, want.Expected.MRR, chosen)
	}
	stdout, stderr, code = runCLI(t, "", "-q", "eval", "--data", data, "--rules", rules, "--combine", "auto")
	if line := strings.SplitN(stdout, "\n", 2)[0]; code != 0 || !strings.HasPrefix(line, "combination chosen on valid (") || !strings.Contains(line, c.Directive) {
		t.Errorf("table format: first line %q (exit %d, %s)", line, code, stderr)
	}
	for _, args := range [][]string{{"--split", "valid"}, {"--prior"}} {
		_, stderr, code = runCLI(t, "", append([]string{"-q", "eval", "--data", data, "--rules", rules, "--combine", "auto"}, args...)...)
		if code == 0 || !strings.Contains(stderr, "--combine auto") {
			t.Errorf("eval --combine auto %v: exit %d, %q; want refused", args, code, stderr)
		}
	}
}
