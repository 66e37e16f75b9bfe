package datalog

import (
	"strings"
	"testing"
)

func TestAggregateValidate(t *testing.T) {
	at := func(line int) Pos { return Pos{File: "m.dl", Line: line, Col: 1} }
	agg := func(line int, method, pred string, params ...Param) Aggregate {
		return Aggregate{Method: method, Params: params, Pred: pred, Pos: at(line)}
	}
	for _, tc := range []struct {
		name string
		aggs []Aggregate
		want []string
	}{
		{"ok", []Aggregate{agg(1, "noisy_or", "", Param{"top", 5}, Param{"prior", 1}), agg(2, "max", "wife")}, nil},
		{"unknown method", []Aggregate{agg(1, "mean", "")},
			[]string{"m.dl:1:1: error: unknown aggregation mean; the methods are grouped, max, noisy_or"}},
		{"unknown parameter", []Aggregate{agg(1, "max", "", Param{"top", 3})},
			[]string{"m.dl:1:1: error: max has no parameter top (it takes prior)"}},
		{"not an integer", []Aggregate{agg(1, "noisy_or", "", Param{"top", 2.5})},
			[]string{"m.dl:1:1: error: top of noisy_or must be an integer in [1, 1048576] (rules per candidate), not 2.5"}},
		{"out of range", []Aggregate{agg(1, "grouped", "", Param{"threshold", 1.5})},
			[]string{"m.dl:1:1: error: threshold of grouped must be a number in [0, 1] (Jaccard overlap that links two rules), not 1.5"}},
		{"set twice", []Aggregate{agg(1, "noisy_or", "", Param{"top", 3}, Param{"top", 3})},
			[]string{"m.dl:1:1: error: parameter top set twice"}},
		{"identical twice", []Aggregate{agg(1, "noisy_or", "", Param{"top", 3}), agg(2, "noisy_or", "", Param{"top", 3})}, nil},
		{"different twice", []Aggregate{agg(1, "noisy_or", "", Param{"top", 3}), agg(2, "max", ""), agg(3, "max", "w"), agg(4, "grouped", "w")},
			[]string{"m.dl:2:1: warning: aggregation max for every relation differs from noisy_or(top = 3) at m.dl:1:1; using the first",
				"m.dl:4:1: warning: aggregation grouped for w differs from max at m.dl:3:1; using the first"}},
	} {
		ds := Validate(&Program{Aggregates: tc.aggs})
		var got []string
		for _, d := range ds {
			got = append(got, d.String())
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestAggregation(t *testing.T) {
	p := &Program{Aggregates: []Aggregate{
		{Method: "max", Pred: "wife"},
		{Method: "noisy_or", Params: []Param{{"top", 3}}},
		{Method: "grouped", Pred: "wife"},
		{Method: "max"},
	}}
	if a := p.Aggregation("wife"); a.Method != "max" || a.Pred != "wife" {
		t.Errorf("wife: %s", a)
	}
	a := p.Aggregation("husband")
	if a.Method != "noisy_or" || a.Value("top") != 3 || a.Value("prior") != 0 {
		t.Errorf("husband: %s top %v prior %v", a, a.Value("top"), a.Value("prior"))
	}
	if a := (&Program{}).Aggregation("x"); a.Method != "max" || a.Value("prior") != 0 {
		t.Errorf("no directive: %s", a)
	}
	if v := (Aggregate{Method: "noisy_or"}).Value("top"); v != 5 {
		t.Errorf("default top %v", v)
	}
	if v := (Aggregate{Method: "grouped"}).Value("threshold"); v != 0.5 {
		t.Errorf("default threshold %v", v)
	}
}
