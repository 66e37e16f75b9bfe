package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// TestStringGrowingRule: a rule that doubles a string every round (over a
// 30,000-character name) is refused (413, limit) once a string would pass
// the store's longest name, instead of taking all memory; nothing changes,
// the previous state is served and the server takes the next update.
func TestStringGrowingRule(t *testing.T) {
	seed := strings.Repeat("s", 30_000)
	e := newEnv(t, "x is y\n", "0.5 :: grow(T, seed) :- is(x, y), T = \"a\".\n", func(c *Config) { c.MaxMemory = 1 << 30 })
	e.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["`+seed+`", "grow", "seed"]]}`)
	before := e.state()
	b := e.mustDo(http.StatusRequestEntityTooLarge, "POST", "/v1/rules", `{"add": ["grow(T, seed) :- grow(S, seed), T = cat(S, S)."]}`)
	if er := wantCode(t, "growing strings", b, CodeLimit); !strings.Contains(er.Error, "longer than the limit of 32768") || len(er.Error) > maxMessage+100 {
		t.Errorf("growing strings: %s", b)
	}
	if after := e.state(); after != before {
		t.Errorf("not rolled back:\nbefore %s\nafter  %s", before, after)
	}
	// + of names concatenates too
	wantCode(t, "+ of names", e.mustDo(http.StatusRequestEntityTooLarge, "POST", "/v1/rules", `{"add": ["grow(T, seed) :- grow(S, seed), T = S + S."]}`), CodeLimit)
	if got := e.ask("grow(X, seed)"); len(got) != 2 {
		t.Errorf("grow(X, seed): %d answers, want the 2 of before", len(got))
	}
	e.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["a", "is", "b"]]}`)
}

// TestMaxMemoryReachesEvaluations: Config.MaxMemory is the evaluations'
// cap: a server whose start must evaluate the program refuses to start
// past it, with the reasoner's memory error.
func TestMaxMemoryReachesEvaluations(t *testing.T) {
	st := store.NewMemory()
	ctx := context.Background()
	if _, err := st.Load(ctx, &store.Batch{Graph: graphOf(t, chainGraph(10, 10))}, nil); err != nil {
		t.Fatal(err)
	}
	prog, err := parser.ParseString("rules.dl", "path(X, Z) :- edge(X, Z).\npath(X, Z) :- path(X, Y), edge(Y, Z).\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(ctx, Config{Store: st, Program: prog, MaxMemory: 1}, nil); !errors.Is(err, reasoner.ErrMemoryLimit) {
		t.Errorf("New with a cap of 1 byte: %v, want ErrMemoryLimit", err)
	}
	if _, err := New(ctx, Config{Store: st, Program: prog}, nil); err != nil {
		t.Errorf("New without a cap: %v", err)
	}
}
