package exchange_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/drumql/drumql/exchange"
	"github.com/drumql/drumql/parser"
)

// An AnyBURL rule file read into weighted rules: the weight is
// correct/(predicted + 5), and a cyclic rule gets object identity.
func ExampleReadAnyBURL() {
	const rules = "20\t15\t0.75\twife(X,Y) <= husband(Y,X)\n" +
		"40\t10\t0.25\tuncle(X,Y) <= brother(X,A), father(A,Y)\n"
	res, err := exchange.ReadAnyBURL("rules.txt", strings.NewReader(rules), exchange.ReadOptions{Smoothing: exchange.DefaultSmoothing})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Program.Rules {
		fmt.Println(r)
	}
	fmt.Printf("%d lines, %d rules\n", res.Report.Lines, res.Report.Rules)
	// Output:
	// % from anyburl support=15 body=20 conf=0.75
	// 0.6 :: wife(X, Y) :- husband(Y, X).
	// % from anyburl support=10 body=40 conf=0.25
	// 0.2222 :: uncle(X, Y) :- brother(X, A), father(A, Y), X != Y.
	// 2 lines, 2 rules
}

// drumql's rules written in AnyBURL's format, with counts that give back
// the weight (60/(95 + 5)); a rule AnyBURL cannot express (here, negation) is
// skipped and counted.
func ExampleWriteAnyBURL() {
	prog, err := parser.ParseString("rules.dl", `
0.6 :: wife(X, Y) :- husband(Y, X).
0.5 :: single(X, Y) :- person(X, Y), not married(X, Y).`)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := exchange.WriteAnyBURL(os.Stdout, prog.Rules, exchange.WriteOptions{Smoothing: exchange.DefaultSmoothing})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d skipped\n", rep.SkippedRules())
	// Output:
	// 95	60	0.6	wife(X,Y) <= husband(Y,X)
	// 1 skipped
}
