package eval

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// TestProgressBusy: the progress reports the wall time of the rounds'
// parallel batches and the time their workers spent in tasks, which
// cannot exceed the batches' wall time on each worker.
func TestProgressBusy(t *testing.T) {
	ctx := context.Background()
	var b store.Batch
	for i := range 400 {
		b.Graph = append(b.Graph, store.NamedTriple{S: fmt.Sprint("n", i), R: "e", O: fmt.Sprint("n", (i*7+1)%400)})
	}
	prog, err := parser.ParseString("p.dl", `
0.9 :: p(X, Y) :- e(X, Y).
0.9 :: p(X, Z) :- p(X, Y), e(Y, Z).
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 2} {
		st := store.NewMemory()
		if _, err := st.Load(ctx, &b, nil); err != nil {
			t.Fatal(err)
		}
		var last Progress
		opt := Options{Threads: threads, Progress: func(p Progress) {
			if p.Phase == PhaseDerive {
				last = p
			}
		}}
		if _, err := Infer(ctx, st, prog, opt); err != nil {
			t.Fatal(err)
		}
		if last.Batches <= 0 || last.Busy <= 0 {
			t.Fatalf("threads %d: batches %v, busy %v: want both counted", threads, last.Batches, last.Busy)
		}
		if last.Busy > time.Duration(threads)*last.Batches {
			t.Errorf("threads %d: workers busy %v in batches of %v: more than %d cores", threads, last.Busy, last.Batches, threads)
		}
	}
}
