package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/store"
)

// namesStore holds wife(alice, bob), marc(alice, x) and the entity "Dana
// Lee" (through knows): a relation named like an entity, an entity written
// with a capital letter.
func namesStore(t testing.TB) store.Store {
	t.Helper()
	st := store.NewMemory()
	b := &store.Batch{Facts: []store.NamedFact{
		{Rel: "wife", Args: []string{"alice", "bob"}},
		{Rel: "marc", Args: []string{"alice", "x"}},
		{Rel: "knows", Args: []string{"Bob", "Dana"}},
	}}
	if _, err := st.Load(context.Background(), b, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestDefined(t *testing.T) {
	st := namesStore(t)
	prog := mustParse(t, "p.dl", "husband(X, Y) :- wife(Y, X).\nparent(ann, bea).")
	for _, c := range []struct {
		pred string
		prog *datalog.Program
		want bool
	}{
		{"wife", nil, true}, {"husband", nil, false}, {"husband", prog, true},
		{"parent", prog, true}, {"cousin", prog, false}, {"alice", prog, false},
	} {
		if got := policy.Defined(st, c.prog, c.pred); got != c.want {
			t.Errorf("Defined(%s, program %v) = %v, want %v", c.pred, c.prog != nil, got, c.want)
		}
	}
}

func TestCapitalisedVars(t *testing.T) {
	st := namesStore(t)
	for _, c := range []struct {
		query, want string
	}{
		{"wife(Alice, Z)?", "[Alice:alice]"},
		{"wife(Bob, Bob)?", `[Bob:"Bob"]`},     // as written first, once
		{"wife(Marc, Dana)?", `[Dana:"Dana"]`}, // marc is a relation
		{"wife(_Alice, _)?", "[]"},
		{"wife(Z, Y)?", "[]"},
		{"wife(X, Z)?", "[X:x]"},
	} {
		q := mustParse(t, "q.dl", c.query).Queries[0]
		var got []string
		for _, v := range policy.CapitalisedVars(st, q.Atom) {
			got = append(got, v.Var+":"+v.Entity.String())
		}
		if s := fmt.Sprintf("%v", got); s != c.want && !(c.want == "[]" && got == nil) {
			t.Errorf("%s: %s, want %s", c.query, s, c.want)
		}
	}
}

func TestCheckQuery(t *testing.T) {
	st := namesStore(t)
	prog := &datalog.Program{Rules: []datalog.Rule{{
		Head: datalog.Atom{Pred: "husband", Args: []datalog.Term{{Kind: datalog.Var, Value: "X"}, {Kind: datalog.Var, Value: "Y"}}},
		Body: []datalog.Literal{{Kind: datalog.Positive, Atom: datalog.Atom{Pred: "wife",
			Args: []datalog.Term{{Kind: datalog.Var, Value: "Y"}, {Kind: datalog.Var, Value: "X"}}}}},
	}}}
	atom := func(pred string) datalog.Atom {
		return datalog.Atom{Pred: pred, Args: []datalog.Term{{Kind: datalog.Var, Value: "X"}, {Kind: datalog.Symbol, Value: "bob"}}}
	}
	for _, pred := range []string{"wife", "husband"} {
		if unknown, err := policy.CheckQuery(st, prog, atom(pred)); unknown || err != nil {
			t.Errorf("%s: unknown %v, %v", pred, unknown, err)
		}
	}
	unknown, err := policy.CheckQuery(st, prog, atom("wief"))
	if !unknown || err == nil || !strings.Contains(err.Error(), "wief") || !strings.Contains(err.Error(), "hint: the store has no base or derived fact of it") {
		t.Errorf("wief: unknown %v, %v", unknown, err)
	}
}
