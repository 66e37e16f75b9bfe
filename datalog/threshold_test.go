package datalog

import (
	"math"
	"strings"
	"testing"
)

// TestThresholdValidate: a Threshold built in Go outside (0, 1] is an error
// at its position.
func TestThresholdValidate(t *testing.T) {
	at := Pos{File: "m.dl", Line: 2, Col: 1}
	for _, tc := range []struct {
		min  float64
		want string
	}{
		{0.1, ""},
		{1, ""},
		{math.SmallestNonzeroFloat64, ""},
		{0, "m.dl:2:1: error: @min 0 is outside (0, 1]: the threshold is the smallest confidence kept"},
		{-0.5, "m.dl:2:1: error: @min -0.5 is outside (0, 1]: the threshold is the smallest confidence kept"},
		{1.01, "m.dl:2:1: error: @min 1.01 is outside (0, 1]: the threshold is the smallest confidence kept"},
		{math.NaN(), "m.dl:2:1: error: @min NaN is outside (0, 1]: the threshold is the smallest confidence kept"},
	} {
		ds := Validate(&Program{Thresholds: []Threshold{{Min: tc.min, Pos: at}}})
		var got []string
		for _, d := range ds {
			got = append(got, d.String())
		}
		if strings.Join(got, "\n") != tc.want {
			t.Errorf("@min %v: got %q, want %q", tc.min, got, tc.want)
		}
	}
}

// TestThresholdFormat: a merged program with several thresholds prints one
// directive, the smallest (what the program means); none prints none.
func TestThresholdFormat(t *testing.T) {
	p := &Program{
		Thresholds: []Threshold{{Min: 0.1}, {Min: 0.05}, {Min: 0.2}},
		Aggregates: []Aggregate{{Method: "max"}},
		Facts:      []Fact{{Weight: 1, Atom: Atom{Pred: "p", Args: []Term{{Kind: Symbol, Value: "a"}}}}},
	}
	if got, want := p.String(), "@min 0.05.\n@aggregate max.\n\np(a).\n"; got != want {
		t.Errorf("prints\n%s\nwant\n%s", got, want)
	}
	if m, ok := p.Threshold(); !ok || m != 0.05 {
		t.Errorf("Threshold() = %v, %v, want 0.05, true", m, ok)
	}
	p.Thresholds = nil
	if got, want := p.String(), "@aggregate max.\n\np(a).\n"; got != want {
		t.Errorf("prints\n%s\nwant\n%s", got, want)
	}
	if _, ok := p.Threshold(); ok {
		t.Error("Threshold() reports one for a program without @min")
	}
	if got := (Threshold{Min: 1e-9}).String(); got != "@min 1e-09." {
		t.Errorf("String() = %q", got)
	}
}
