package lineerr_test

import (
	"fmt"

	"github.com/drumql/drumql/internal/lineerr"
)

func Example() {
	fmt.Println(lineerr.Error{File: "graph.tsv", Line: 3, Reason: "empty head"})
	fmt.Println(&lineerr.Error{File: "rules.txt", Line: 12, Col: 7, Reason: "expected a number"})
	// Output:
	// graph.tsv:3: empty head
	// rules.txt:12:7: expected a number
}
