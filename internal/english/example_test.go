package english_test

import (
	"fmt"

	"github.com/drumql/drumql/internal/english"
)

func Example() {
	for _, n := range []int{1, 12345} {
		fmt.Println(english.Thousands(n), english.Plural(n, "derivation", "derivations"))
	}
	// Output:
	// 1 derivation
	// 12,345 derivations
}
