package parser_test

import (
	"fmt"
	"os"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
)

func ExampleParseString() {
	src := `% mined
0.83 :: son(C, A) :- brother(A, B), mother(C, B).
"/people/person/nationality"(X, Y) :- "/people/person/places_lived"(X, Z), located(Z, Y).
"_also_see"("/m/027rn", "01698271").
`
	p, err := parser.ParseString("family.dl", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(p)
	// Output:
	// "_also_see"("/m/027rn", "01698271").
	//
	// 0.83 :: son(C, A) :- brother(A, B), mother(C, B).
	// "/people/person/nationality"(X, Y) :- "/people/person/places_lived"(X, Z), located(Z, Y).
}

func ExampleParseString_errors() {
	src := "wife(X, Y) :- husband(Y X).\nsingle(X) :- person(X), not married(X, Y).\n"
	p, err := parser.ParseString("family.dl", src)
	sources := map[string]string{"family.dl": src}
	if err != nil {
		fmt.Print(err.(datalog.Diagnostics).Format(sources))
	}
	fmt.Print(datalog.Validate(p).Format(sources))
	// Output:
	// family.dl:1:25: error: unexpected "X", expected ")"
	// wife(X, Y) :- husband(Y X).
	//                         ^
	// family.dl:2:40: error: variable Y occurs only in negated literals: it must occur in a positive body atom (or use _)
	// single(X) :- person(X), not married(X, Y).
	//                                        ^
}

func ExampleParseQuery() {
	q, err := parser.ParseQuery("wife(X, alice)")
	if err != nil {
		fmt.Println(err)
		return
	}
	known := map[string]int{"wife": 2, "husband": 2}
	err = datalog.CheckQuery(q, func(p string) (int, bool) { a, ok := known[p]; return a, ok }, "wife", "husband")
	fmt.Println(q, err)
	q, _ = parser.ParseQuery("wief(X, alice)?")
	err = datalog.CheckQuery(q, func(p string) (int, bool) { a, ok := known[p]; return a, ok }, "wife", "husband")
	fmt.Println(err)
	// Output:
	// wife(X, alice)? <nil>
	// query:1:1: error: unknown predicate wief; did you mean wife?
}

func ExampleParseFile() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(dir+"/main.dl", []byte("@import \"kg.tsv\".\nwife(X, Y) :- husband(Y, X).\n"), 0o644)
	_ = os.WriteFile(dir+"/kg.tsv", []byte("bob\thusband\talice\r\n"), 0o644)
	p, err := parser.ParseFile(dir + "/main.dl")
	fmt.Print(p)
	fmt.Println(err)
	// Output:
	// husband(bob, alice).
	//
	// wife(X, Y) :- husband(Y, X).
	// <nil>
}

// ParseTriples reads what `drumql load` reads; a malformed line is reported
// at its position and the good lines are kept.
func ExampleParseTriples() {
	data := []byte("\ufeffalice\tmother\tbob\r\n\nbob\tfather\ncarol\tsister\talice\n")
	facts, err := parser.ParseTriples("kg.tsv", data)
	for _, f := range facts {
		fmt.Println(f.Pos, f)
	}
	fmt.Println(err)
	// Output:
	// kg.tsv:1:1 mother(alice, bob).
	// kg.tsv:4:1 sister(carol, alice).
	// kg.tsv:3:1: error: want 3 tab-separated fields (head, relation, tail), got 2
}
