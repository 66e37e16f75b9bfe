// Command ruleuse prints, for each rule of the program a store's derived
// facts were last inferred with (the store's record), the number of derived
// facts whose best proof is by that rule: one line per rule, in the
// program's order, "COUNT<TAB>FILE:LINE". bench/maintain.sh edits the rule
// with the most. It reads the materialisation image when it is current
// (and otherwise the stored derived facts, writing an image).
//
//	go run ./bench/ruleuse -db fb.db > use.tsv
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/maintain"
	"github.com/drumql/drumql/store"
)

func main() {
	dir := flag.String("db", "drumql.db", "the store")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "ruleuse:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	ms, err := db.Materialised()
	if err != nil {
		return err
	}
	if ms.Program == nil {
		return fmt.Errorf("%s holds no derived facts of an infer", dir)
	}
	prog, min, err := maintain.DecodeRecord(ms.Program, func(src string) (*datalog.Program, error) {
		return parser.ParseString("record", src)
	})
	if err != nil {
		return err
	}
	res, err := maintain.Catchup(context.Background(), db, prog, reasoner.Options{Min: min},
		maintain.CatchupOptions{Keep: true, Parse: parser.ParseString})
	if err != nil {
		return err
	}
	if res.M == nil {
		return fmt.Errorf("%s: the derived facts cannot be read back (%s)", dir, res.Why)
	}
	w := bufio.NewWriter(os.Stdout)
	for i, n := range res.M.ProofsByRule() {
		p := prog.Rules[i].Pos
		fmt.Fprintf(w, "%d\t%s:%d\n", n, p.File, p.Line)
	}
	return w.Flush()
}
