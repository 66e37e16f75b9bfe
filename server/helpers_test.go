package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

// testGraph is a small family graph, one "s r o" triple a line.
const testGraph = `
marc_ueda husband alice_ortiz
bob husband carol
carol aunt dan
bob uncle dan
erin aunt fay
gus uncle fay
hal father ida
ida mother jon
`

// testRules is the rule file of the tests: a mined-style comment, rules
// over several lines, and a rule the edits remove.
const testRules = `% family rules, hand-written
% score=0.9 ranks=1 support=2 body=3 conf=0.6667
0.8 :: wife(A, B) :- husband(B, A).
wife(A, B) :- aunt(A, C),
    uncle(B, C), A != B.   % the aunt and uncle of a child are married
0.9 :: grand(X, Z) :- father(X, Y), mother(Y, Z).
% the end
`

// graphOf parses the lines of a test graph.
func graphOf(t *testing.T, g string) []store.NamedTriple {
	t.Helper()
	var out []store.NamedTriple
	for _, l := range strings.Split(strings.TrimSpace(g), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			t.Fatalf("bad triple %q", l)
		}
		out = append(out, store.NamedTriple{S: f[0], R: f[1], O: f[2]})
	}
	return out
}

// testEnv is a server over a Badger store in a temporary directory.
type testEnv struct {
	t     *testing.T
	dir   string
	db    string
	rules string
	edits string
	st    store.Store
	srv   *Server
	ts    *httptest.Server
	how   string // how New brought the derived facts up to date
}

// newEnv loads graph into a new store, writes rules to rules.dl and starts
// a server on a loopback port; edit adjusts the configuration.
func newEnv(t *testing.T, graph, rules string, edit func(*Config)) *testEnv {
	t.Helper()
	dir := t.TempDir()
	e := &testEnv{t: t, dir: dir, db: filepath.Join(dir, "db"), rules: filepath.Join(dir, "rules.dl"), edits: filepath.Join(dir, "edits.dl")}
	if err := os.WriteFile(e.rules, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(e.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.st = st
	t.Cleanup(func() { st.Close() })
	if _, err := st.Load(context.Background(), &store.Batch{Graph: graphOf(t, graph)}, nil); err != nil {
		t.Fatal(err)
	}
	e.start(edit)
	return e
}

// start (re)starts the server over e.st with the rule files as they are.
func (e *testEnv) start(edit func(*Config)) {
	t := e.t
	t.Helper()
	files := []string{e.rules}
	if _, err := os.Stat(e.edits); err == nil {
		files = append(files, e.edits)
	}
	prog := &datalog.Program{}
	for _, f := range files {
		p, err := parser.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		prog.Rules = append(prog.Rules, p.Rules...)
		prog.Facts = append(prog.Facts, p.Facts...)
		prog.Aggregates = append(prog.Aggregates, p.Aggregates...)
	}
	// No image unless a test asks (TestImageKeptCurrent): a timer would
	// write one after the test's store closes.
	cfg := Config{Store: e.st, Program: prog, Files: files, Edits: e.edits, Threads: 1, ImageDelay: -1}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(context.Background(), cfg, func(how string) { e.how = how })
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	e.ts = httptest.NewServer(srv.Handler())
	t.Cleanup(e.ts.Close)
}

// do sends a request and returns the status and the body.
func (e *testEnv) do(method, path, body string, header ...string) (int, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, b
}

// mustDo is do that expects the status.
func (e *testEnv) mustDo(want int, method, path, body string, header ...string) []byte {
	e.t.Helper()
	code, b := e.do(method, path, body, header...)
	if code != want {
		e.t.Fatalf("%s %s %s: status %d, want %d: %s", method, path, body, code, want, b)
	}
	return b
}

// answers is a query's answers as "v1 v2 ..." -> confidence.
type answers map[string]float64

// ask posts a query and returns its answers.
func (e *testEnv) ask(q string) answers {
	e.t.Helper()
	body, _ := json.Marshal(QueryRequest{Query: q})
	b := e.mustDo(http.StatusOK, "POST", "/v1/query", string(body))
	return rowsOf(e.t, q, b)
}

// rowsOf decodes the answer objects of query q.
func rowsOf(t *testing.T, q string, b []byte) answers {
	t.Helper()
	atom, err := parser.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	vars := wire.QueryVars(atom.Atom)
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatalf("%s: %v: %s", q, err, b)
	}
	out := answers{}
	for _, r := range rows {
		var k []string
		for _, v := range vars {
			k = append(k, r[v].(string))
		}
		out[strings.Join(k, " ")] = r["confidence"].(float64)
	}
	return out
}

// fresh answers q as reasoner.Infer of the rule files' program over a new
// store holding graph does.
func fresh(t *testing.T, graph []store.NamedTriple, files []string, q string) answers {
	t.Helper()
	prog := &datalog.Program{}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		p, err := parser.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		prog.Rules = append(prog.Rules, p.Rules...)
	}
	st := store.NewMemory()
	ctx := context.Background()
	if _, err := st.Load(ctx, &store.Batch{Graph: graph}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := reasoner.Infer(ctx, st, prog, reasoner.Options{}); err != nil {
		t.Fatal(err)
	}
	atom, err := parser.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	out := answers{}
	if err := reasoner.CheckQuery(st, nil, atom.Atom); err != nil {
		return out // nothing derived
	}
	as, err := reasoner.Query(ctx, st, nil, atom.Atom, reasoner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range as {
		out[strings.Join(a.Values, " ")] = a.Confidence
	}
	return out
}

// sameAnswers fails unless got and want hold the same answers with the
// same confidences.
func sameAnswers(t *testing.T, what string, got, want answers) {
	t.Helper()
	for k, c := range want {
		g, ok := got[k]
		if !ok || math.Abs(g-c) > 1e-6 {
			t.Errorf("%s: answer %q: got %v (present %v), want %v", what, k, g, ok, c)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected answer %q", what, k)
		}
	}
}

// errorBody decodes an error response.
func errorBody(t *testing.T, b []byte) apiError {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(b, &e); err != nil || e.Error == "" {
		t.Fatalf("not an error body (%v): %s", err, b)
	}
	return e
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newJSONLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

func tripleOf(t []string) store.NamedTriple { return store.NamedTriple{S: t[0], R: t[1], O: t[2]} }

func slicesHas(g []store.NamedTriple, t []string) bool { return slices.Contains(g, tripleOf(t)) }

func slicesDelete(g []store.NamedTriple, t []string) []store.NamedTriple {
	x := tripleOf(t)
	return slices.DeleteFunc(g, func(y store.NamedTriple) bool { return y == x })
}
