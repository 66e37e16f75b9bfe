package reasoner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// aggregateCases are integer aggregates at the edges of int64: sums that
// reach the bounds exactly and sums one past them (positive and negative
// overflow), min and max at the bounds and across integers and floats,
// and counts. The values are those of the facts num(kI, value); want is
// the aggregate's value, or err a part of the error.
var aggregateCases = []struct {
	op     string
	values []string
	want   string
	err    string
}{
	{"sum", []string{"9223372036854775807", "0"}, "9223372036854775807", ""},
	{"sum", []string{"9223372036854775807", "1"}, "", "integer overflow"},
	{"sum", []string{"9223372036854775806", "1"}, "9223372036854775807", ""},
	{"sum", []string{"4611686018427387904", "4611686018427387904"}, "", "integer overflow"},
	{"sum", []string{"4611686018427387904", "4611686018427387903"}, "9223372036854775807", ""},
	{"sum", []string{"-9223372036854775808", "0"}, "-9223372036854775808", ""},
	{"sum", []string{"-9223372036854775808", "-1"}, "", "integer overflow"},
	{"sum", []string{"-9223372036854775807", "-1"}, "-9223372036854775808", ""},
	{"sum", []string{"-4611686018427387904", "-4611686018427387904"}, "-9223372036854775808", ""},
	{"sum", []string{"-4611686018427387904", "-4611686018427387905"}, "", "integer overflow"},
	{"sum", []string{"-9223372036854775808", "9223372036854775807"}, "-1", ""},
	{"sum", []string{"-3", "-4"}, "-7", ""},
	{"sum", []string{"5"}, "5", ""},
	{"sum", []string{"1.5", "-2"}, "-0.5", ""},
	{"min", []string{"-9223372036854775808", "0", "9223372036854775807"}, "-9223372036854775808", ""},
	{"max", []string{"-9223372036854775808", "0", "9223372036854775807"}, "9223372036854775807", ""},
	{"min", []string{"-1", "-2"}, "-2", ""},
	{"max", []string{"-1", "-2"}, "-1", ""},
	{"min", []string{"1", "0.5"}, "0.5", ""},
	{"max", []string{"1", "0.5"}, "1", ""},
	{"max", []string{"7"}, "7", ""},
	{"count", []string{"7"}, "1", ""},
	{"count", []string{"-9223372036854775808", "0", "9223372036854775807"}, "3", ""},
}

// TestIntegerAggregates evaluates each aggregate of aggregateCases by
// Query.
func TestIntegerAggregates(t *testing.T) {
	ctx := context.Background()
	for _, c := range aggregateCases {
		t.Run(c.op+" "+strings.Join(c.values, " "), func(t *testing.T) {
			st := store.NewMemory()
			var b store.Batch
			for i, v := range c.values {
				k := fmt.Sprint("k", i)
				b.Graph = append(b.Graph, store.NamedTriple{S: "g", R: "grp", O: k}, store.NamedTriple{S: k, R: "num", O: v})
			}
			if _, err := st.Load(ctx, &b, nil); err != nil {
				t.Fatal(err)
			}
			target := " A"
			if c.op == "count" {
				target = ""
			}
			src := fmt.Sprintf("s(G, S) :- grp(G, _), S = %s%s : { grp(G, K), num(K, A) }.\n", c.op, target)
			prog, err := parser.ParseString("agg.dl", src)
			if err != nil {
				t.Fatal(err)
			}
			q, err := parser.ParseQuery("s(g, S)?")
			if err != nil {
				t.Fatal(err)
			}
			as, err := reasoner.Query(ctx, st, prog, q.Atom, reasoner.Options{})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("%s: answers %v, error %v, want an error containing %q", src, as, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			if len(as) != 1 || len(as[0].Values) != 1 || as[0].Values[0] != c.want {
				t.Fatalf("%s: answers %+v, want %s", src, as, c.want)
			}
		})
	}
}
