package cluster

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/miner"
)

func TestManifestRoundTrip(t *testing.T) {
	m := &Manifest{Groups: []ManifestGroup{
		{File: "m.g1", Heads: []string{"a", "b"}, SHA256: "00"},
		{File: "m.g2", Heads: []string{"c"}, SHA256: "ff"},
	}}
	var b bytes.Buffer
	if err := WriteManifest(&b, m); err != nil {
		t.Fatal(err)
	}
	if !IsManifest(b.Bytes()) || IsManifest([]byte("drumql-drum-model 1\n")) {
		t.Errorf("IsManifest is wrong on %q", b.String())
	}
	got, err := ReadManifest(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("read %+v, want %+v", got, m)
	}
}

func TestReadManifestErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"magic", "drumql-model-groups 2\n{}", "bad magic"},
		{"json", manifestMagic + "{", "unexpected EOF"},
		{"no groups", manifestMagic + `{"groups": []}`, "no groups"},
		{"no heads", manifestMagic + `{"groups": [{"file": "a", "sha256": "x"}]}`, "group 1 has no heads"},
		{"path", manifestMagic + `{"groups": [{"file": "../a", "heads": ["r"]}]}`, "not a plain file name"},
		{"dup head", manifestMagic + `{"groups": [{"file": "a", "heads": ["r"]}, {"file": "b", "heads": ["r"]}]}`, `head "r" is in groups 1 and 2`},
		{"unknown field", manifestMagic + `{"groups": [{"file": "a", "heads": ["r"], "x": 1}]}`, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadManifest(strings.NewReader(tt.text))
			if err == nil || !errors.Is(err, ErrBadManifest) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrBadManifest and %q", err, tt.want)
			} else if n := strings.Count(err.Error(), "cluster:"); n != 1 {
				t.Errorf("error %q names the package %d times, want once", err, n)
			}
		})
	}
}

// TestRulesRoundTrip: the result format keeps every field, the numbers
// exactly.
func TestRulesRoundTrip(t *testing.T) {
	rules := []miner.MinedRule{{
		Rule: datalog.Rule{Weight: 0.1 + 0.2, Head: datalog.Atom{Pred: "wife", Args: []datalog.Term{{Kind: datalog.Var, Value: "A"}, {Kind: datalog.Var, Value: "B"}}},
			Body: []datalog.Literal{{Atom: datalog.Atom{Pred: "husband", Args: []datalog.Term{{Kind: datalog.Var, Value: "B"}, {Kind: datalog.Symbol, Value: "x y"}}}}}},
		Head: "wife", Score: 1.0 / 3, Ranks: []float64{1e-300, 2.5}, Counted: true, Support: 7, Body: 9, Confidence: 7.0 / 9,
	}, {Head: "z", FromGraph: true}}
	b, err := EncodeRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRules(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rules) {
		t.Errorf("decoded %+v, want %+v", got, rules)
	}
	if _, err := DecodeRules([]byte("[{")); err == nil {
		t.Error("DecodeRules accepted a truncated list")
	}
}
