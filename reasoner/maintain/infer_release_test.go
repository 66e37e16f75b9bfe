package maintain

import (
	"context"
	"runtime"
	"testing"
	"weak"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/testkit"
	"github.com/drumql/drumql/store"
)

// TestInferReleasesRules: Infer with an image (what `drumql infer` runs)
// holds no reference to the program's rules during the fixpoint: the
// image needs the program's size only (programSize), and the evaluator
// lets go of the rules it compiled (eval.TestInferReleasesRules).
func TestInferReleasesRules(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testkit.LoadTSV(t, db, "a\te\tb\nb\te\tc\nc\te\td\n")
	prog, body := programAndBody(t, `p(X, Y) :- e(X, Y).
0.9 :: p(X, Z) :- p(X, Y), e(Y, Z).
`)
	rounds := 0
	opt := eval.Options{Threads: 1, Progress: func(p eval.Progress) {
		if p.Phase != eval.PhaseDerive || rounds > 0 {
			return
		}
		rounds++
		runtime.GC()
		if body.Value() != nil {
			t.Error("a rule's body is reachable during the fixpoint")
		}
	}}
	if _, err := Infer(ctx, db, prog, opt, InferOptions{}); err != nil {
		t.Fatal(err)
	}
	if rounds == 0 {
		t.Fatal("no round reported")
	}
	if s, err := db.Image(true); err != nil || !s.Current {
		t.Fatalf("no current image after Infer: %+v, %v", s, err)
	}
}

// programAndBody parses src and returns it with a weak pointer to the
// first body literal of its first rule.
func programAndBody(t *testing.T, src string) (*datalog.Program, weak.Pointer[datalog.Literal]) {
	t.Helper()
	p := testkit.MustParse(t, src)
	return p, weak.Make(&p.Rules[0].Body[0])
}

// TestApplyReleasesOldSyntax: an update to a new program lets go of the
// old program's syntax for the rules the two share: the unit takes the new
// program's (the two programs were 250 MB of an update of the pinned
// FB15k-237 file, the old one parsed from the store's record).
func TestApplyReleasesOldSyntax(t *testing.T) {
	ctx := context.Background()
	const src = `0.9 :: p(X, Y) :- e(X, Y).
0.8 :: q(X, Z) :- e(X, Y), e(Y, Z).
`
	old, kept := func() (*datalog.Program, weak.Pointer[datalog.Literal]) {
		p := testkit.MustParse(t, src)
		return p, weak.Make(&p.Rules[1].Body[0])
	}()
	m, _, err := Materialise(ctx, testkit.NewStore(t, "a\te\tb\nb\te\tc\n"), old, eval.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Apply(ctx, Delta{Program: testkit.MustParse(t, "0.8 :: q(X, Z) :- e(X, Y), e(Y, Z).\n")}); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	if kept.Value() != nil {
		t.Error("the kept rule's old syntax is reachable after the update")
	}
	runtime.KeepAlive(m)
}
