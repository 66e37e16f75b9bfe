package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// TestStringGrowingRule: a rule that doubles a string every round (over a
// 30,000-character name) is refused (413, limit) once a string would pass
// --max-string (Config.MaxString; by default the store's longest name, 1
// MiB), instead of taking all memory; nothing changes, the previous state
// is served and the server takes the next update. A fact with a longer
// name is refused (400).
func TestStringGrowingRule(t *testing.T) {
	seed := strings.Repeat("s", 30_000)
	for _, c := range []struct {
		max, limit int // Config.MaxString, and the limit the error names
	}{{0, store.MaxNameLen}, {100_000, 100_000}} {
		e := newEnv(t, "x is y\n", "0.5 :: grow(T, seed) :- is(x, y), T = \"a\".\n", func(cf *Config) { cf.MaxMemory, cf.MaxString, cf.MaxBody = 1<<30, c.max, 1<<22 })
		e.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["`+seed+`", "grow", "seed"]]}`)
		before := e.state()
		b := e.mustDo(http.StatusRequestEntityTooLarge, "POST", "/v1/rules", `{"add": ["grow(T, seed) :- grow(S, seed), T = cat(S, S)."]}`)
		if er := wantCode(t, "growing strings", b, CodeLimit); !strings.Contains(er.Error, fmt.Sprintf("longer than the limit of %d", c.limit)) || len(er.Error) > maxMessage+100 {
			t.Errorf("growing strings, limit %d: %s", c.limit, b)
		}
		if after := e.state(); after != before {
			t.Errorf("not rolled back:\nbefore %s\nafter  %s", before, after)
		}
		// + of names concatenates too
		wantCode(t, "+ of names", e.mustDo(http.StatusRequestEntityTooLarge, "POST", "/v1/rules", `{"add": ["grow(T, seed) :- grow(S, seed), T = S + S."]}`), CodeLimit)
		if got := e.ask("grow(X, seed)"); len(got) != 2 {
			t.Errorf("grow(X, seed): %d answers, want the 2 of before", len(got))
		}
		long := strings.Repeat("n", c.limit+1)
		if b := e.mustDo(http.StatusBadRequest, "POST", "/v1/facts", `{"add": [["`+long+`", "is", "y"]]}`); !strings.Contains(string(b), fmt.Sprintf("a name of %d bytes", c.limit+1)) || !strings.Contains(string(b), fmt.Sprintf("longer than %d bytes", c.limit)) && !strings.Contains(string(b), fmt.Sprintf("longer than the limit of %d", c.limit)) {
			t.Errorf("a name of %d bytes: %.200s", c.limit+1, b)
		}
		e.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["a", "is", "b"]]}`)
	}
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

// TestMemoryRefusal: an update or a query whose evaluation reached
// --max-memory while it was the only read or write being answered is
// refused with 413 (it alone passes the limit), and with 503 and
// Retry-After while another was in flight (it may pass once that is done).
// The read and write wrappers count the requests in flight.
func TestMemoryRefusal(t *testing.T) {
	e := newEnv(t, "x is y\n", "0.5 :: p(X) :- is(X, y).\n", nil)
	s := e.srv
	err := &reasoner.MemoryLimitError{InUse: 2 << 30, Cap: 1 << 30}
	for _, c := range []struct {
		name  string
		write func(w http.ResponseWriter)
	}{
		{"update", func(w http.ResponseWriter) { s.updateError(w, err) }},
		{"query", func(w http.ResponseWriter) { s.evalError(w, context.Background(), err) }},
	} {
		for _, others := range []int64{0, 1} {
			s.holding.Add(1 + others) // the request itself, and the others
			rec := httptest.NewRecorder()
			c.write(rec)
			s.holding.Add(-1 - others)
			want, retry, says := http.StatusRequestEntityTooLarge, "", "no other request in flight"
			if others > 0 {
				want, retry, says = http.StatusServiceUnavailable, "1", "other requests held memory: try again"
			}
			if rec.Code != want || rec.Header().Get("Retry-After") != retry || !strings.Contains(rec.Body.String(), says) || !strings.Contains(rec.Body.String(), `"code": "memory_limit"`) {
				t.Errorf("%s with %d others in flight: %d, Retry-After %q: %s", c.name, others, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
			}
		}
	}
	var seen []int64
	h := func(w http.ResponseWriter, r *http.Request) { seen = append(seen, s.holding.Load()) }
	s.read(h)(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	s.auth(h)(httptest.NewRecorder(), httptest.NewRequest("POST", "/", nil))
	if len(seen) != 2 || seen[0] != 1 || seen[1] != 1 || s.holding.Load() != 0 {
		t.Errorf("in flight inside read and auth: %v, after: %d", seen, s.holding.Load())
	}
}
