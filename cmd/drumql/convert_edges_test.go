package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// convertSmoothingCases are --smoothing values with the header line and
// the weight of the rule "wife(X, Y) <= husband(Y, X)" (110 correct of 120
// predicted) convert writes: 0 is the plain confidence, as --help says.
var convertSmoothingCases = []struct {
	args   []string
	header string
	rule   string
}{
	{nil, "% weights: correct/(predicted + 5), to 4 significant digits\n", "0.88 :: wife(X, Y) :- husband(Y, X).\n"},
	{[]string{"--smoothing", "5"}, "% weights: correct/(predicted + 5), to 4 significant digits\n", "0.88 :: wife(X, Y) :- husband(Y, X).\n"},
	{[]string{"--smoothing", "0"}, "% weights: correct/predicted, to 4 significant digits\n", "0.9167 :: wife(X, Y) :- husband(Y, X).\n"},
	{[]string{"--smoothing=0"}, "% weights: correct/predicted, to 4 significant digits\n", "0.9167 :: wife(X, Y) :- husband(Y, X).\n"},
	{[]string{"--smoothing", "1"}, "% weights: correct/(predicted + 1), to 4 significant digits\n", "0.9091 :: wife(X, Y) :- husband(Y, X).\n"},
	{[]string{"--smoothing", "10"}, "% weights: correct/(predicted + 10), to 4 significant digits\n", "0.8462 :: wife(X, Y) :- husband(Y, X).\n"},
}

// TestConvertSmoothing: convert --smoothing N weights a rule read from
// AnyBURL correct/(predicted + N), and says so in the file's header.
func TestConvertSmoothing(t *testing.T) {
	in := filepath.Join("testdata", "convert", "families-anyburl.txt")
	for _, c := range convertSmoothingCases {
		t.Run(strings.Join(append([]string{"args"}, c.args...), " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "anyburl.dl")
			args := append([]string{"convert", "--from", "anyburl", in, "--out", out}, c.args...)
			if _, stderr, code := runCLI(t, "", args...); code != 0 {
				t.Fatalf("convert: exit %d: %s", code, stderr)
			}
			text, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{c.header, c.rule} {
				if !strings.Contains(string(text), want) {
					t.Errorf("converted file lacks %q:\n%s", want, text)
				}
			}
		})
	}
}
