package datalog

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Aggregate is an `@aggregate` directive: how link prediction combines the
// rules that predict one candidate into the candidate's ranking score. A
// mined file records the aggregation its rules were chosen for:
//
//	@aggregate noisy_or(top = 5).               % every head relation of the file
//	@aggregate max(prior = 1) for wife.         % one head relation
//
// The weight in front of `::` is always the rule's calibrated confidence
// (what infer, explain and negation use); the directive only says how
// several rules' confidences rank a candidate. A program without a
// directive means max.
type Aggregate struct {
	// Method is "max", "noisy_or" or "grouped" (see [AggregateMethods]).
	Method string
	// Params are the method's parameters, in source order.
	Params []Param
	// Pred is the head relation the directive applies to; empty for every
	// relation that has no directive of its own.
	Pred string
	// Pos is where the directive starts.
	Pos Pos
}

// Param is one `name = value` parameter of an [Aggregate].
type Param struct {
	Name  string
	Value float64
}

// paramSpec describes one parameter of an aggregation method.
type paramSpec struct {
	name     string
	def      float64
	integer  bool
	min, max float64 // inclusive bounds
	doc      string
}

// AggregateMethods lists the aggregation methods and their parameters:
//
//   - max: a candidate scores its best rule's confidence; ties are broken
//     by the next-best rules (AnyBURL's order);
//   - noisy_or: 1 − Π(1 − c) over the candidate's top `top` rules (default
//     5), ties broken as max does;
//   - grouped: noisy-or across groups of rules whose predictions overlap
//     (Jaccard ≥ `threshold`, default 0.5), max inside a group (SAFRAN's
//     idea), ties broken as max does.
//
// Every method takes `prior` (0 or 1, default 0): with 1, candidates no rule
// reaches are ranked by how often they fill the query's slot of the relation
// in the graph (the constant-head "zero rules"), below every candidate a rule
// reaches.
var AggregateMethods = map[string][]paramSpec{
	"max":      {priorSpec},
	"noisy_or": {{name: "top", def: 5, integer: true, min: 1, max: 1 << 20, doc: "rules per candidate"}, priorSpec},
	"grouped":  {{name: "threshold", def: 0.5, min: 0, max: 1, doc: "Jaccard overlap that links two rules"}, priorSpec},
}

var priorSpec = paramSpec{name: "prior", def: 0, integer: true, min: 0, max: 1, doc: "rank unreached candidates by the slot prior"}

// Value returns the parameter name of a, or its method's default when the
// directive does not set it.
func (a Aggregate) Value(name string) float64 {
	for _, p := range a.Params {
		if p.Name == name {
			return p.Value
		}
	}
	for _, s := range AggregateMethods[a.Method] {
		if s.name == name {
			return s.def
		}
	}
	return 0
}

// String returns the directive in canonical form, e.g.
// `@aggregate noisy_or(top = 5) for wife.`
func (a Aggregate) String() string { return string(a.appendTo(nil)) }

func (a Aggregate) appendTo(b []byte) []byte {
	b = append(b, "@aggregate "...)
	b = appendName(b, a.Method)
	if len(a.Params) > 0 {
		b = append(b, '(')
		for i, p := range a.Params {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendName(b, p.Name)
			b = append(b, " = "...)
			b = strconv.AppendFloat(b, p.Value, 'g', -1, 64)
		}
		b = append(b, ')')
	}
	if a.Pred != "" {
		b = append(b, " for "...)
		b = appendName(b, a.Pred)
	}
	return append(b, '.')
}

// Describe returns the method and its parameters, e.g. `noisy_or(top = 5)`,
// for messages.
func (a Aggregate) Describe() string {
	a.Pred = ""
	return strings.TrimSuffix(strings.TrimPrefix(a.String(), "@aggregate "), ".")
}

// Aggregation returns the directive that applies to head relation pred: the
// first directive for pred, else the first one for every relation, else
// max with its defaults.
func (p *Program) Aggregation(pred string) Aggregate {
	for _, a := range p.Aggregates {
		if a.Pred == pred && pred != "" {
			return a
		}
	}
	for _, a := range p.Aggregates {
		if a.Pred == "" {
			return a
		}
	}
	return Aggregate{Method: "max"}
}

// checkAggregates validates the directives: known methods and parameters,
// values in range, a parameter set once. Two directives for the same
// relation (or two for every relation) that differ are a warning, as when
// mined files recorded for different aggregations are merged: the first one
// is used. Identical ones are not reported.
func checkAggregates(p *Program) Diagnostics {
	var ds Diagnostics
	first := map[string]*Aggregate{}
	for i := range p.Aggregates {
		a := &p.Aggregates[i]
		specs, ok := AggregateMethods[a.Method]
		if !ok {
			names := make([]string, 0, len(AggregateMethods))
			for m := range AggregateMethods {
				names = append(names, m)
			}
			slices.Sort(names)
			ds = append(ds, Diagnostic{a.Pos, Error, fmt.Sprintf(
				"unknown aggregation %s; the methods are %s", QuoteName(a.Method), strings.Join(names, ", "))})
			continue
		}
		seen := map[string]bool{}
		for _, prm := range a.Params {
			k := slices.IndexFunc(specs, func(s paramSpec) bool { return s.name == prm.Name })
			if k < 0 {
				var names []string
				for _, s := range specs {
					names = append(names, s.name)
				}
				ds = append(ds, Diagnostic{a.Pos, Error, fmt.Sprintf(
					"%s has no parameter %s (it takes %s)", a.Method, QuoteName(prm.Name), strings.Join(names, ", "))})
				continue
			}
			s := specs[k]
			if seen[prm.Name] {
				ds = append(ds, Diagnostic{a.Pos, Error, fmt.Sprintf("parameter %s set twice", prm.Name)})
			}
			seen[prm.Name] = true
			v := prm.Value
			if math.IsNaN(v) || v < s.min || v > s.max || s.integer && v != math.Trunc(v) {
				kind := "a number"
				if s.integer {
					kind = "an integer"
				}
				ds = append(ds, Diagnostic{a.Pos, Error, fmt.Sprintf("%s of %s must be %s in [%s, %s] (%s), not %s",
					prm.Name, a.Method, kind, strconv.FormatFloat(s.min, 'f', -1, 64),
					strconv.FormatFloat(s.max, 'f', -1, 64), s.doc, strconv.FormatFloat(v, 'g', -1, 64))})
			}
		}
		if f, ok := first[a.Pred]; ok {
			if f.String() != a.String() {
				what := "every relation"
				if a.Pred != "" {
					what = QuoteName(a.Pred)
				}
				ds = append(ds, Diagnostic{a.Pos, Warning, fmt.Sprintf(
					"aggregation %s for %s differs from %s at %s; using the first",
					a.Describe(), what, f.Describe(), f.Pos)})
			}
			continue
		}
		first[a.Pred] = a
	}
	return ds
}
