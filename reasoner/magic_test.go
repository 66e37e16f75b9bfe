package reasoner

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const ancestorProgram = `ancestor(X, Y) :- parent(X, Y).
ancestor(X, Y) :- parent(X, Z), ancestor(Z, Y).
`

// TestMagicWork checks that the magic-set rewrite makes a query with a
// constant goal-directed: on a chain of 400 nodes, ancestor(v390, X)? has
// 9 answers, and the evaluation may derive facts for the 10 nodes v390
// reaches (their ancestor facts and magic facts, about 10²/2 + 10 + 9), not
// the closure of the chain (about 400²/2). Without the rewrite it derives
// the closure: the bound separates the two.
func TestMagicWork(t *testing.T) {
	ctx := context.Background()
	const n, bound = 400, 200
	st := newStore(t, chainTSV(n, "parent"))
	p := mustParse(t, ancestorProgram)
	q := mustQuery(t, fmt.Sprintf("ancestor(v%d, X)?", n-10))
	for _, magic := range []bool{true, false} {
		opt := Options{Threads: 1, noMagic: !magic, work: &workCounters{}}
		as, err := Query(ctx, st, p, q, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) != 9 {
			t.Fatalf("magic=%v: %d answers, want 9", magic, len(as))
		}
		derived := opt.work.derived.Load()
		t.Logf("magic=%v: %d facts derived", magic, derived)
		switch {
		case magic && derived > bound:
			t.Errorf("with magic sets %s derived %d facts, want at most %d", q, derived, bound)
		case !magic && derived <= bound:
			t.Errorf("without magic sets %s derived %d facts, want more than %d (the closure)", q, derived, bound)
		}
	}
}

// TestMagicGolden prints the magic-set rewrite of one query with the
// datalog printer and compares it with testdata/magic_related.golden (go
// test -update rewrites it). Internal predicates are renamed for reading:
// magic_P_AD for the magic predicate of P with adornment AD (b bound, f
// free), P_AD for the adorned predicate, answer for the answer relation.
// The comment of each rule says where it comes from.
func TestMagicGolden(t *testing.T) {
	p := mustParse(t, ancestorProgram+`0.9 :: related(X, Y) :- ancestor(X, Y), not adopted(Y).
0.8 :: related(X, Y) :- ancestor(Y, X).
adopted(Y) :- fostered(Y, _), person(Y).
`)
	q := mustQuery(t, "related(ann, X)?")
	u := queryUnit(p, q, true)
	rename := func(name string) string {
		if name == ansPred {
			return "answer"
		}
		parts := strings.Split(name, "\x00")
		if len(parts) == 4 && parts[0] == "" {
			if parts[1] == "m" {
				return "magic_" + parts[2] + "_" + parts[3]
			}
			return parts[2] + "_" + parts[3]
		}
		return name
	}
	out := &datalog.Program{}
	for i, r := range u.prog.Rules {
		m := u.meta[i]
		r.Head.Pred = rename(r.Head.Pred)
		r.Body = append([]datalog.Literal(nil), r.Body...)
		var guards []string
		for j := range r.Body {
			r.Body[j].Atom.Pred = rename(r.Body[j].Atom.Pred)
			if m.guard != nil && m.guard[j] {
				guards = append(guards, fmt.Sprint(j+1))
			}
		}
		var c []string
		if m.src >= 0 {
			c = append(c, fmt.Sprintf("from rule %d", m.src+1))
		}
		if m.crisp {
			c = append(c, "crisp")
		}
		if m.copy {
			c = append(c, "copies its fact")
		}
		if len(guards) > 0 {
			c = append(c, "guards: literal "+strings.Join(guards, ", "))
		}
		r.Comment = strings.Join(c, "; ")
		out.Rules = append(out.Rules, r)
	}
	got := fmt.Sprintf("%% query %s, answers in %s\n%s", q, rename(u.answer), out)
	file := filepath.Join("testdata", "magic_related.golden")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("rewrite of %s differs from %s (go test -update rewrites it):\n%s", q, file, got)
	}
}
