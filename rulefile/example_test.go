package rulefile_test

import (
	"bytes"
	"fmt"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/rulefile"
)

// A rule file written as drumql mine writes it, then stamped with its
// checksum: StateOf tells it from a file edited since.
func ExampleWrite() {
	prog, err := parser.ParseString("rules.dl", "0.9 :: wife(X, Y) :- husband(Y, X).")
	if err != nil {
		fmt.Println(err)
		return
	}
	var b bytes.Buffer
	rulefile.Write(&b, rulefile.MinedHeader+": 1 rules for 1 head relations", 0.1, []datalog.Aggregate{{Method: "max"}}, prog.Rules, nil)
	fmt.Print(b.String())
	stamped := rulefile.Stamp(b.Bytes())
	fmt.Println(rulefile.StateOf(stamped) == rulefile.Intact, rulefile.StateOf(append(stamped, '\n')) == rulefile.Edited)
	// Output:
	// % drumql mine: 1 rules for 1 head relations
	//
	// @aggregate max.
	//
	// % infer, query and explain drop derivations of these rules below @min (their --min overrides it):
	// % hundreds of weak rules per head, chained through each other, would derive nearly every pair.
	// @min 0.1.
	//
	// % ---- wife ----
	// 0.9 :: wife(X, Y) :- husband(Y, X).
	// true true
}
