package query

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/oracle"
	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestErrorsNamePackageOnce: an error of the reasoner says "reasoner:"
// once, however many of its layers wrapped it ("reasoner: query p(X, Y):
// context canceled", not "reasoner: query p(X, Y): reasoner: context
// canceled"), and errors.Is still finds what it wraps.
func TestErrorsNamePackageOnce(t *testing.T) {
	bg := context.Background()
	st := testkit.NewStore(t, chainTSV(60, "e"))
	tc := testkit.MustParse(t, "tc(X, Y) :- e(X, Y).\ntc(X, Z) :- tc(X, Y), e(Y, Z).\n")
	q := testkit.MustQuery(t, "tc(X, Y)?")
	cancelled, cancel := context.WithCancel(bg)
	cancel()
	one := eval.Options{Threads: 1}
	capped := eval.Options{Threads: 1, MaxFacts: 100}
	cases := []struct {
		name string
		run  func() error
		want error
	}{
		{"query cancelled before it starts", func() error {
			_, err := Query(cancelled, st, tc, q, one)
			return err
		}, context.Canceled},
		{"query cancelled in a round", func() error {
			_, err := Query(testkit.NewCancelAfter(5), st, tc, q, one)
			return err
		}, context.Canceled},
		{"query over the cap", func() error {
			_, err := Query(bg, st, tc, q, capped)
			return err
		}, eval.ErrTooManyFacts},
		{"streamed query cancelled in a round", func() error {
			return QueryFunc(testkit.NewCancelAfter(5), st, tc, q, one, func(eval.Answer) bool { return true })
		}, context.Canceled},
		{"count over the cap", func() error {
			_, err := Count(bg, st, tc, q, capped)
			return err
		}, eval.ErrTooManyFacts},
		{"engine query cancelled", func() error {
			en, err := Prepare(bg, st, tc, eval.Options{Threads: 1, NoChain: true})
			if err != nil {
				return err
			}
			_, err = en.Query(cancelled, q)
			return err
		}, context.Canceled},
		{"explain of a fact that does not hold", func() error {
			_, err := Explain(bg, st, tc, testkit.MustQuery(t, "tc(v3, v1)?"), one)
			return err
		}, eval.ErrNoProof},
		{"infer over the cap", func() error {
			_, err := eval.Infer(bg, st, tc, capped)
			return err
		}, eval.ErrTooManyFacts},
		{"infer over the memory cap", func() error {
			_, err := eval.Infer(bg, st, tc, eval.Options{Threads: 1, MaxMemory: 1 << 10})
			return err
		}, eval.ErrMemoryLimit},
		{"infer cancelled in a round", func() error {
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			_, err := eval.Infer(ctx, st, tc, eval.Options{Threads: 1, Progress: func(p eval.Progress) {
				if p.Rounds == 2 {
					cancel()
				}
			}})
			return err
		}, context.Canceled},
	}
	for _, c := range cases {
		err := c.run()
		switch {
		case err == nil:
			t.Errorf("%s: no error", c.name)
		case !errors.Is(err, c.want):
			t.Errorf("%s: %q does not wrap %q", c.name, err, c.want)
		case strings.Count(err.Error(), "reasoner:") != 1 || !strings.HasPrefix(err.Error(), "reasoner: "):
			t.Errorf("%s: %q should start with the package's name and name it once", c.name, err)
		}
	}
	_, err := eval.Infer(bg, st, tc, eval.Options{MaxMemory: 1 << 10})
	if m, ok := errors.AsType[*eval.MemoryLimitError](err); !ok || m.Cap != 1<<10 {
		t.Errorf("errors.As(%v, *MemoryLimitError) = %v, %v", err, m, ok)
	}
}

// TestInferMaxMemoryCoversWrite: Options.MaxMemory also bounds the write of
// the derived facts; past it the write stops and the store is unchanged.
func TestInferMaxMemoryCoversWrite(t *testing.T) {
	st := testkit.NewStore(t, chainTSV(100, "e"))
	small := testkit.MustParse(t, "tc(X, Y) :- e(X, Y).\n")
	if _, err := eval.Infer(context.Background(), st, small, eval.Options{}); err != nil {
		t.Fatal(err)
	}
	before := oracle.DerivedDump(t, st)
	// The fixpoint holds far less than the 1 GiB cap; the write is told
	// it holds more.
	big := testkit.MustParse(t, "tc(X, Y) :- e(X, Y).\ntc(X, Z) :- tc(X, Y), e(Y, Z).\n")
	_, err := eval.Infer(context.Background(), st, big, eval.Options{MaxMemory: 1 << 30, WriteMemory: func() int64 { return 2 << 30 }})
	m, ok := errors.AsType[*eval.MemoryLimitError](err)
	if !ok || !m.Writing || !strings.Contains(err.Error(), "storing the") {
		t.Fatalf("want a MemoryLimitError while writing, got %v", err)
	}
	if after := oracle.DerivedDump(t, st); after != before {
		t.Errorf("derived facts changed after a write stopped by the cap")
	}
}
