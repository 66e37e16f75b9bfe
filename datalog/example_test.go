package datalog_test

import (
	"fmt"

	"github.com/drumql/drumql/datalog"
)

func vr(n string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: n} }

func at(pred string, args ...datalog.Term) datalog.Atom { return datalog.Atom{Pred: pred, Args: args} }

func lit(a datalog.Atom) datalog.Literal { return datalog.Literal{Kind: datalog.Positive, Atom: a} }

func ExampleRule_Key() {
	a := datalog.Rule{Weight: 0.5, Head: at("h", vr("A"), vr("B")), Body: []datalog.Literal{lit(at("b", vr("B"), vr("A")))}}
	b := datalog.Rule{Weight: 0.9, Head: at("h", vr("X"), vr("Y")), Body: []datalog.Literal{lit(at("b", vr("Y"), vr("X")))}}
	fmt.Println(a.Key())
	fmt.Println(a.Key() == b.Key())
	// Output:
	// h(V0, V1) :- b(V1, V0).
	// true
}

func ExampleStratify() {
	// anc(X, Y) :- parent(X, Y).
	// anc(X, Y) :- parent(X, Z), anc(Z, Y).
	// unrelated(X, Y) :- person(X), person(Y), not anc(X, Y).
	p := &datalog.Program{Rules: []datalog.Rule{
		{Weight: 1, Head: at("anc", vr("X"), vr("Y")), Body: []datalog.Literal{lit(at("parent", vr("X"), vr("Y")))}},
		{Weight: 1, Head: at("anc", vr("X"), vr("Y")), Body: []datalog.Literal{lit(at("parent", vr("X"), vr("Z"))), lit(at("anc", vr("Z"), vr("Y")))}},
		{Weight: 1, Head: at("unrelated", vr("X"), vr("Y")), Body: []datalog.Literal{
			lit(at("person", vr("X"))), lit(at("person", vr("Y"))),
			{Kind: datalog.Negated, Atom: at("anc", vr("X"), vr("Y"))}}},
	}}
	strata, ds := datalog.Stratify(p)
	if ds.HasErrors() {
		fmt.Println(ds)
		return
	}
	for i, s := range strata {
		fmt.Println(i, s.Preds, s.Rules, s.Recursive)
	}
	// Output:
	// 0 [anc] [0 1] true
	// 1 [unrelated] [2] false
}

func ExampleMerge() {
	expert := &datalog.Program{Rules: []datalog.Rule{{Weight: 1, Head: at("single", vr("X")),
		Body: []datalog.Literal{lit(at("person", vr("X"))), {Kind: datalog.Negated, Atom: at("married", vr("X"), vr("_"))}}}}}
	mined := &datalog.Program{Rules: []datalog.Rule{
		{Weight: 0.8, Head: at("married", vr("X"), vr("Y")), Body: []datalog.Literal{lit(at("spouse", vr("X"), vr("Y")))}},
		{Weight: 0.4, Head: at("married", vr("X"), vr("Y")), Body: []datalog.Literal{lit(at("single", vr("X"))), lit(at("person", vr("Y")))},
			Pos: datalog.Pos{File: "mined.dl", Line: 2, Col: 1}},
	}}
	merged, ds := datalog.Merge(expert, mined)
	fmt.Print(merged)
	fmt.Println(ds)
	// Output:
	// single(X) :- person(X), not married(X, _).
	// 0.8 :: married(X, Y) :- spouse(X, Y).
	// mined.dl:2:1: error: mined rule rejected: it would create a cycle through negation: married -> single -> not married
}
