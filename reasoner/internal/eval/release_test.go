package eval

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/store"
)

// TestInferReleasesRules: once Infer has compiled and stratified the
// program, it holds none of its rules' syntax (runFixpoint), from the
// first round on: not a rule it evaluates, nor one it left out as too
// weak (of which it keeps the predicates, for addLeftOut). A mined file's syntax trees are a few hundred
// bytes a rule, 200 MB of the pinned FB15k-237 file's, live through the
// fixpoint before.
func TestInferReleasesRules(t *testing.T) {
	ctx := context.Background()
	st := edgeStore(t)
	prog, kept, weakRule := programAndBodies(t, `
@min 0.1.
0.9 :: p(X, Z) :- e(X, Y), e(Y, Z).
0.05 :: q(X, Y) :- e(Y, X).
p(a, a).
`)
	rounds := 0
	opt := atFirstRound(&rounds, func() {
		if kept.Value() != nil {
			t.Error("the body of the rule evaluated is reachable during the fixpoint")
		}
		if weakRule.Value() != nil {
			t.Error("the body of the rule left out is reachable during the fixpoint")
		}
	})
	called := false
	_, err := InferThen(ctx, st, prog, opt, func(in Inferred, err error) {
		called = true
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := in.E.RelIdx[RelKey("q", 2)]; !ok {
			t.Error("the left-out rule's relation q is missing")
		}
		runtime.GC()
		if kept.Value() != nil {
			t.Error("the body of the rule evaluated is still reachable after the fixpoint")
		}
		if weakRule.Value() != nil {
			t.Error("the body of the rule left out is still reachable after addLeftOut")
		}
		// The evaluator lives on, as it does to write an image
		// (reasoner/maintain): it holds no rule either.
		runtime.KeepAlive(in.E)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !called || rounds == 0 {
		t.Fatalf("after called: %v; rounds reported: %d", called, rounds)
	}
}

// edgeStore is an in-memory store holding e(a, b) and e(b, c).
func edgeStore(t *testing.T) store.Store {
	t.Helper()
	st := store.NewMemory()
	b := store.Batch{Graph: []store.NamedTriple{{S: "a", R: "e", O: "b"}, {S: "b", R: "e", O: "c"}}}
	if _, err := st.Load(context.Background(), &b, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

// atFirstRound returns the options (two threads) of an inference that
// collects garbage and runs check at the first round of its fixpoint;
// *rounds counts that round.
func atFirstRound(rounds *int, check func()) Options {
	return Options{Threads: 2, Progress: func(p Progress) {
		if p.Phase != PhaseDerive || *rounds > 0 {
			return
		}
		*rounds++
		runtime.GC()
		check()
	}}
}

// programAndBodies parses src and returns it with weak pointers to the
// first body literal of its first two rules; the caller's program is
// the only strong reference to them.
func programAndBodies(t *testing.T, src string) (*datalog.Program, weak.Pointer[datalog.Literal], weak.Pointer[datalog.Literal]) {
	t.Helper()
	p, err := parser.ParseString("p.dl", src)
	if err != nil {
		t.Fatal(err)
	}
	return p, weak.Make(&p.Rules[0].Body[0]), weak.Make(&p.Rules[1].Body[0])
}

// TestInferReleasesSource: during the fixpoint, Infer holds no string
// that shares the bytes of the program's text (a name parsed from it and
// kept would keep the whole text: the pinned FB15k-237 file's 31 MB).
func TestInferReleasesSource(t *testing.T) {
	ctx := context.Background()
	st := edgeStore(t)
	prog, text := programAndText(t, `@min 0.1.
@aggregate noisy_or for p.
0.9 :: p(X, Z) :- e(X, Y), e(Y, Z), X != Z.
0.8 :: p(X, Y) :- e(X, Y), "local symbol" != X.
0.05 :: q(X, Y) :- e(Y, X).
`)
	rounds := 0
	opt := atFirstRound(&rounds, func() {
		if text.Value() != nil {
			t.Error("the program's text is reachable during the fixpoint")
		}
	})
	if _, err := InferThen(ctx, st, prog, opt, func(in Inferred, err error) {
		if err != nil {
			t.Fatal(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if rounds == 0 {
		t.Fatal("no round reported")
	}
}

// programAndText parses src from a copy of its own and returns the program
// with a weak pointer to the copy's bytes.
func programAndText(t *testing.T, src string) (*datalog.Program, weak.Pointer[byte]) {
	t.Helper()
	text := strings.Clone(src)
	p, err := parser.ParseString("p.dl", text)
	if err != nil {
		t.Fatal(err)
	}
	return p, weak.Make(unsafe.StringData(text))
}
