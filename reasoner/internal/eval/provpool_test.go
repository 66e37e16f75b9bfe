package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// TestProofsInPlace: with provInPlace (Infer's), a tuple whose confidence
// rises gets its new proof over its old one when they are as long. On
// random weighted graphs, where paths found later are stronger, every
// tuple has the same confidence and proof as with a record added per rise
// (which leaves unused words: the programs do replace proofs), and the
// words unused are fewer; with rules whose records are all as long, the
// pool holds exactly the tuples' records (counted).
func TestProofsInPlace(t *testing.T) {
	ctx := context.Background()
	sameLength := "0.9 :: p(X, Z) :- e(X, Y), e(Y, Z).\n0.95 :: p(X, Z) :- p(X, Y), e(Y, Z).\n" +
		"0.8 :: q(X, Z) :- e(X, Y), p(Y, Z).\n0.9 :: q(X, Z) :- p(X, Y), p(Y, Z).\n"
	mixed := "0.9 :: p(X, Y) :- e(X, Y).\n0.95 :: p(X, Z) :- p(X, Y), e(Y, Z).\n" +
		"0.8 :: q(X, Z) :- e(X, Y), e(Y, Z).\n0.9 :: q(X, Z) :- p(X, Y), p(Y, Z).\n0.7 :: q(X, Y) :- p(Y, X).\n"
	for seed := range 16 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		var src strings.Builder
		rules := sameLength
		if seed%2 == 1 {
			rules = mixed
		}
		src.WriteString(rules)
		for range 60 {
			fmt.Fprintf(&src, "0.%d :: e(n%d, n%d).\n", 1+rng.IntN(9), rng.IntN(15), rng.IntN(15))
		}
		prog, err := parser.ParseString("p.dl", src.String())
		if err != nil {
			t.Fatal(err)
		}
		var dumps [2]string
		var words, live [2]int
		for i, inPlace := range []bool{false, true} {
			e, _, _, err := runFixpoint(ctx, store.NewMemory(), prog, Options{Threads: 2}, "test", func(e *Evaluator) {
				e.Prov = true
				e.provInPlace = inPlace
			})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, r := range e.Rels {
				for k := range int32(r.N) {
					fmt.Fprintf(&b, "%s%v %.9g", r.Name, r.Tuple(k), r.ConfAt(k))
					if p := r.ProvAt(k); p >= 0 {
						rule := e.Pool.Rule(p)
						w := e.Pool.Words(p, e.Rules[rule].RefWords())
						fmt.Fprintf(&b, " by %d %v", rule, w)
						live[i] += 1 + len(w)
					}
					b.WriteByte('\n')
				}
			}
			dumps[i] = b.String()
			for _, c := range e.Pool.Chunks {
				words[i] += len(c)
			}
		}
		if dumps[0] != dumps[1] {
			t.Fatalf("seed %d: proofs written in place differ:\n%s\nwant:\n%s", seed, dumps[1], dumps[0])
		}
		if words[0] <= live[0] {
			t.Fatalf("seed %d: no proof was replaced (%d words, %d live): the test tests nothing", seed, words[0], live[0])
		}
		if rules == sameLength && words[1] != live[1] {
			t.Errorf("seed %d: the pool holds %d words for records of %d", seed, words[1], live[1])
		}
		if words[1]-live[1] >= words[0]-live[0] {
			t.Errorf("seed %d: %d words unused in place, %d added", seed, words[1]-live[1], words[0]-live[0])
		}
	}
}
