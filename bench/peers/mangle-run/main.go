// Command mangle-run evaluates a Mangle program with google/mangle's
// semi-naive engine and prints the number of facts of one predicate. It is a
// benchmark peer only; drumql itself does not depend on Mangle.
//
//	mangle-run PROGRAM.mg PREDICATE ARITY
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/google/mangle/analysis"
	"github.com/google/mangle/ast"
	"github.com/google/mangle/engine"
	"github.com/google/mangle/factstore"
	"github.com/google/mangle/parse"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: mangle-run PROGRAM.mg PREDICATE ARITY")
		os.Exit(2)
	}
	arity, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, "mangle-run: bad arity:", err)
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "mangle-run:", err)
		os.Exit(1)
	}
	unit, err := parse.Unit(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mangle-run: parse:", err)
		os.Exit(1)
	}
	info, err := analysis.AnalyzeOneUnit(unit, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mangle-run: analysis:", err)
		os.Exit(1)
	}
	store := factstore.NewSimpleInMemoryStore()
	if _, err := engine.EvalProgramWithStats(info, store); err != nil {
		fmt.Fprintln(os.Stderr, "mangle-run: eval:", err)
		os.Exit(1)
	}
	n := 0
	pred := ast.PredicateSym{Symbol: os.Args[2], Arity: arity}
	vars := make([]ast.BaseTerm, arity)
	for i := range vars {
		vars[i] = ast.Variable{Symbol: fmt.Sprintf("X%d", i)}
	}
	_ = store.GetFacts(ast.Atom{Predicate: pred, Args: vars}, func(ast.Atom) error { n++; return nil })
	fmt.Println(n)
}
