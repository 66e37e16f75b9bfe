package eval

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// From the reasoner's errors_test.go.

// cancelAfter is a context that cancels itself on the n-th call of Err:
// a cancellation in the middle of an evaluation, at a point that depends
// only on the evaluation (with one thread), never on the clock.
type cancelAfter struct {
	context.Context
	n      atomic.Int64
	cancel context.CancelFunc
}

func newCancelAfter(n int64) *cancelAfter {
	ctx, cancel := context.WithCancel(context.Background())
	c := &cancelAfter{Context: ctx, cancel: cancel}
	c.n.Store(n)
	return c
}

func (c *cancelAfter) Err() error {
	if c.n.Add(-1) <= 0 {
		c.cancel()
	}
	return c.Context.Err()
}

// From the reasoner's helpers_test.go.

// newStore returns a memory store holding the triples of tsv
// (subject<TAB>relation<TAB>object lines).
func newStore(t testing.TB, tsv string) *store.Mem {
	t.Helper()
	st := store.NewMemory()
	loadTSV(t, st, tsv)
	return st
}

// loadTSV loads the triples of tsv (subject<TAB>relation<TAB>object lines)
// into st.
func loadTSV(t testing.TB, st store.Store, tsv string) {
	t.Helper()
	var b store.Batch
	for line := range strings.SplitSeq(tsv, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("bad triple line %q", line)
		}
		b.Graph = append(b.Graph, store.NamedTriple{S: f[0], R: f[1], O: f[2]})
	}
	if _, err := st.Load(context.Background(), &b, nil); err != nil {
		t.Fatal(err)
	}
}

func mustParse(t testing.TB, src string) *datalog.Program {
	t.Helper()
	p, err := parser.ParseString("test.dl", src)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return p
}
