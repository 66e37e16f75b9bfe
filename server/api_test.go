package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/drumql/drumql/wire"
)

func TestEndpoints(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)

	if b := e.mustDo(200, "GET", "/v1/health", ""); strings.TrimSpace(string(b)) != `{
  "status": "ok"
}` {
		t.Errorf("health: %s", b)
	}

	sameAnswers(t, "wife", e.ask("wife(X, Y)?"), answers{"alice_ortiz marc_ueda": 0.8, "carol bob": 1, "erin gus": 1})
	sameAnswers(t, "wife of marc", e.ask("wife(X, marc_ueda)"), answers{"alice_ortiz": 0.8})

	// top keeps the best answers, in order
	b := e.mustDo(200, "POST", "/v1/query", `{"query": "wife(X, Y)?", "top": 2}`)
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil || len(rows) != 2 || rows[0]["confidence"].(float64) != 1 {
		t.Errorf("top 2: %v %s", err, b)
	}
	if !strings.Contains(string(b), `"X": "carol",`) || strings.Index(string(b), `"X"`) > strings.Index(string(b), `"Y"`) {
		t.Errorf("answer keys not in variable order: %s", b)
	}
	// min drops the weaker answers
	if got := rowsOf(t, "wife(X, Y)?", e.mustDo(200, "POST", "/v1/query", `{"query": "wife(X, Y)?", "min": 0.9}`)); len(got) != 2 {
		t.Errorf("min 0.9: %v", got)
	}
	// a ground query
	var ground map[string]any
	json.Unmarshal(e.mustDo(200, "POST", "/v1/query", `{"query": "wife(erin, gus)?"}`), &ground)
	if ground["holds"] != true || ground["confidence"].(float64) != 1 {
		t.Errorf("ground: %v", ground)
	}
	json.Unmarshal(e.mustDo(200, "POST", "/v1/query", `{"query": "wife(gus, erin)?"}`), &ground)
	if ground["holds"] != false {
		t.Errorf("ground, false: %v", ground)
	}
	// explain: every answer carries its proof
	b = e.mustDo(200, "POST", "/v1/query", `{"query": "grand(X, jon)?", "explain": true}`)
	if !strings.Contains(string(b), `"proof"`) || !strings.Contains(string(b), `"mother(ida, jon)"`) {
		t.Errorf("query with explain: %s", b)
	}
	// ndjson: one object a line
	b = e.mustDo(200, "POST", "/v1/query", `{"query": "wife(X, Y)?"}`, "Accept", "application/x-ndjson")
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("ndjson: %d lines: %s", len(lines), b)
	}
	nd := answers{}
	for _, l := range lines {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("ndjson line %q: %v", l, err)
		}
		nd[r["X"].(string)+" "+r["Y"].(string)] = r["confidence"].(float64)
	}
	sameAnswers(t, "ndjson", nd, e.ask("wife(X, Y)?"))
	b = e.mustDo(200, "POST", "/v1/query", `{"query": "wife(X, Y)?", "top": 1}`, "Accept", "application/x-ndjson")
	if n := strings.Count(string(b), "\n"); n != 1 {
		t.Errorf("ndjson with top 1: %d lines", n)
	}

	// explain
	b = e.mustDo(200, "POST", "/v1/explain", `{"fact": "wife(alice_ortiz, marc_ueda)"}`)
	var p wire.Proof
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if p.Rule != "0.8 :: wife(A, B) :- husband(B, A)." || p.Line != 3 || !strings.HasSuffix(p.File, "rules.dl") ||
		len(p.Children) != 1 || !p.Children[0].Base || p.Children[0].Fact != "husband(marc_ueda, alice_ortiz)" {
		t.Errorf("explain: %s", b)
	}
	e.mustDo(404, "POST", "/v1/explain", `{"fact": "wife(gus, erin)"}`)
	e.mustDo(400, "POST", "/v1/explain", `{"fact": "wife(X, erin)"}`)

	// rules, all and by head
	var rules []wire.Rule
	json.Unmarshal(e.mustDo(200, "GET", "/v1/rules", ""), &rules)
	if len(rules) != 3 {
		t.Fatalf("rules: %v", rules)
	}
	r0 := rules[0]
	if r0.Rule != "0.8 :: wife(A, B) :- husband(B, A)." || r0.Weight != 0.8 || r0.Line != 3 ||
		r0.Support == nil || *r0.Support != 2 || r0.Body == nil || *r0.Body != 3 || r0.Confidence == nil || *r0.Confidence != 0.6667 {
		t.Errorf("first rule: %+v", r0)
	}
	if rules[1].Support != nil || rules[1].Weight != 1 || rules[1].Line != 4 {
		t.Errorf("second rule: %+v", rules[1])
	}
	json.Unmarshal(e.mustDo(200, "GET", "/v1/rules?head=grand", ""), &rules)
	if len(rules) != 1 || rules[0].Head != "grand" {
		t.Errorf("rules of grand: %+v", rules)
	}

	// stats
	var st Stats
	json.Unmarshal(e.mustDo(200, "GET", "/v1/stats", ""), &st)
	if st.BaseFacts != 8 || st.DerivedFacts != 4 || st.Rules != 3 || st.LastUpdate.IsZero() || len(st.PerRelation) != 7 {
		t.Errorf("stats: %+v", st)
	}

	// openapi: valid JSON describing every path
	var api struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(e.mustDo(200, "GET", "/v1/openapi.json", ""), &api); err != nil || !strings.HasPrefix(api.OpenAPI, "3.") {
		t.Fatalf("openapi: %v %q", err, api.OpenAPI)
	}
	for path, methods := range map[string][]string{"/v1/health": {"get"}, "/v1/query": {"post"}, "/v1/explain": {"post"},
		"/v1/rules": {"get", "post"}, "/v1/facts": {"post"}, "/v1/load": {"post"}, "/v1/retract": {"post"}, "/v1/stats": {"get"}, "/v1/summary": {"get"}, "/v1/openapi.json": {"get"}, "/metrics": {"get"}, "/": {"get"}, "/static/{file}": {"get"}} {
		for _, m := range methods {
			if api.Paths[path][m] == nil {
				t.Errorf("openapi.json lacks %s %s", m, path)
			}
		}
	}

	// metrics, after the requests above
	b = e.mustDo(200, "GET", "/metrics", "")
	for _, want := range []string{
		`drumql_http_requests_total{endpoint="/v1/query",method="POST",status="200"}`,
		`drumql_http_requests_total{endpoint="/v1/explain",method="POST",status="404"} 1`,
		`drumql_http_request_duration_seconds_bucket{endpoint="/v1/query",method="POST",status="200",le="+Inf"}`,
		"drumql_base_facts 8", "drumql_derived_facts 4", "drumql_rules 3", "drumql_update_duration_seconds_count 1",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestErrors(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.MaxBody = 300 })
	cases := []struct {
		name, method, path, body string
		status                   int
		msg                      string // in the error
		line, col                int
	}{
		{"bad JSON", "POST", "/v1/query", `{"query": `, 400, "bad JSON", 0, 0},
		{"unknown field", "POST", "/v1/query", `{"qurey": "wife(X, Y)?"}`, 400, "unknown field", 0, 0},
		{"bad query", "POST", "/v1/query", `{"query": "wife(X, Y"}`, 400, "expected", 1, 10},
		{"unknown predicate", "POST", "/v1/query", `{"query": "wief(X, Y)?"}`, 404, "did you mean wife?", 0, 0},
		{"arity", "POST", "/v1/query", `{"query": "wife(X)?"}`, 400, "wife", 0, 0},
		{"bad top", "POST", "/v1/query", `{"query": "wife(X, Y)?", "top": -1}`, 400, "top", 0, 0},
		{"bad combine", "POST", "/v1/query", `{"query": "wife(X, Y)?", "combine": "sum"}`, 400, "combine", 0, 0},
		{"body too large", "POST", "/v1/query", `{"query": "wife(X, Y)?` + strings.Repeat(" ", 400) + `"}`, 413, "larger than 300 bytes", 0, 0},
		{"explain unknown", "POST", "/v1/explain", `{"fact": "wief(a, b)"}`, 404, "did you mean wife?", 0, 0},
		{"bad rule", "POST", "/v1/rules", `{"add": ["wife(A, B) :- husband(B, A"]}`, 400, "expected", 1, 27},
		{"unsafe rule", "POST", "/v1/rules", `{"add": ["wife(A, B) :- husband(C, A)."]}`, 400, "unsafe head variable B", 1, 9},
		{"remove unknown", "POST", "/v1/rules", `{"remove": ["wife(A, B) :- husband(A, B)."]}`, 404, "not a loaded rule", 0, 0},
		{"add loaded", "POST", "/v1/rules", `{"add": ["0.3 :: wife(X, Y) :- husband(Y, X)."]}`, 409, "loaded already", 0, 0},
		{"nothing", "POST", "/v1/rules", `{}`, 400, "nothing to do", 0, 0},
		{"bad triple", "POST", "/v1/facts", `{"add": [["a", "b"]]}`, 400, "three names", 0, 0},
		{"wrong method", "GET", "/v1/query", ``, 405, "", 0, 0},
		{"no endpoint", "GET", "/v2/query", ``, 404, "no endpoint", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, b := e.do(c.method, c.path, c.body)
			if code != c.status {
				t.Fatalf("status %d, want %d: %s", code, c.status, b)
			}
			if c.msg == "" {
				return
			}
			er := errorBody(t, b)
			if !strings.Contains(er.Error, c.msg) {
				t.Errorf("error %q lacks %q", er.Error, c.msg)
			}
			if c.line != 0 && (er.Line != c.line || er.Col != c.col) {
				t.Errorf("at %d:%d, want %d:%d (%s)", er.Line, er.Col, c.line, c.col, b)
			}
		})
	}
	// nothing changed
	sameAnswers(t, "after the errors", e.ask("wife(X, Y)?"), answers{"alice_ortiz marc_ueda": 0.8, "carol bob": 1, "erin gus": 1})
	if _, err := os.Stat(e.edits); err == nil {
		t.Error("a refused edit created the edits file")
	}
}

func TestQueryTimeout(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.QueryTimeout = time.Nanosecond })
	for _, req := range []struct{ path, body string }{
		{"/v1/query", `{"query": "wife(X, Y)?"}`},
		{"/v1/explain", `{"fact": "wife(erin, gus)"}`},
	} {
		code, b := e.do("POST", req.path, req.body)
		if code != http.StatusServiceUnavailable || !strings.Contains(errorBody(t, b).Error, "--query-timeout") {
			t.Errorf("%s: %d %s", req.path, code, b)
		}
	}
	// the server is unharmed
	e.mustDo(200, "GET", "/v1/health", "")
	e.mustDo(200, "GET", "/v1/stats", "")
}

func TestMaxFacts(t *testing.T) {
	// 4 facts derived at start; the added rule would derive 4 more.
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.MaxFacts = 6 })
	code, b := e.do("POST", "/v1/rules", `{"add": ["0.5 :: knows(X, Y) :- husband(X, Z), aunt(Y, W)."]}`)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(errorBody(t, b).Error, "--max-facts") {
		t.Fatalf("%d %s", code, b)
	}
	// nothing changed, and the next update works
	var rules []wire.Rule
	json.Unmarshal(e.mustDo(200, "GET", "/v1/rules", ""), &rules)
	if len(rules) != 3 {
		t.Errorf("rules after the refused edit: %d", len(rules))
	}
	if _, err := os.Stat(e.edits); err == nil {
		t.Error("the refused edit was persisted")
	}
	e.undefined("knows(X, Y)?")
	sameAnswers(t, "grand", e.ask("grand(X, Y)?"), answers{"hal jon": 0.9})
	e.mustDo(200, "POST", "/v1/rules", `{"remove": ["0.9 :: grand(X, Z) :- father(X, Y), mother(Y, Z)."]}`)
	// no rule defines grand any more, and no fact of it is stored
	e.undefined("grand(X, Y)?")
}

func TestToken(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.Token = "s3cret" })
	for _, req := range []struct{ path, body string }{
		{"/v1/rules", `{"add": ["0.5 :: spouse(X, Y) :- wife(X, Y)."]}`},
		{"/v1/facts", `{"add": [["kim", "husband", "lee"]]}`},
	} {
		for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "s3cret"}} {
			code, b := e.do("POST", req.path, req.body, h...)
			if code != http.StatusUnauthorized || !strings.Contains(errorBody(t, b).Error, "Bearer") {
				t.Errorf("%s with %v: %d %s", req.path, h, code, b)
			}
		}
		e.mustDo(200, "POST", req.path, req.body, "Authorization", "Bearer s3cret")
	}
	// reads need no token
	sameAnswers(t, "spouse", e.ask("spouse(lee, X)?"), answers{"kim": 0.4})
	e.mustDo(200, "POST", "/v1/explain", `{"fact": "wife(lee, kim)"}`)
	e.mustDo(200, "GET", "/v1/rules", "")
	e.mustDo(200, "GET", "/v1/stats", "")
	e.mustDo(200, "GET", "/metrics", "")
}

// TestLogLines checks one structured line per request.
func TestLogLines(t *testing.T) {
	var buf syncBuffer
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.Logger = newJSONLogger(&buf) })
	e.mustDo(200, "GET", "/v1/health", "")
	e.mustDo(404, "POST", "/v1/query", `{"query": "wief(X, Y)?"}`)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %s", len(lines), buf.String())
	}
	re := regexp.MustCompile(`"method":"POST","path":"/v1/query","status":404,"duration_ms":[0-9.]+`)
	if !re.MatchString(lines[1]) {
		t.Errorf("log line %s", lines[1])
	}
}

// TestQueryMaxFacts: a query whose evaluation (noisy-or re-evaluates the
// rules of the predicate) would derive more than MaxFacts facts is 413,
// and the server answers the next query.
func TestQueryMaxFacts(t *testing.T) {
	var g strings.Builder
	for i := range 20 {
		fmt.Fprintf(&g, "h%d husband w%d\n", i, i)
	}
	e := newEnv(t, g.String(), "0.8 :: wife(A, B) :- husband(B, A).\n0.7 :: wife(A, B) :- husband(B, A), husband(B, A).\n", func(c *Config) { c.MaxFacts = 30 })
	code, b := e.do("POST", "/v1/query", `{"query": "wife(X, Y)?", "combine": "noisy-or"}`)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(errorBody(t, b).Error, "--max-facts") {
		t.Fatalf("%d %s", code, b)
	}
	if got := e.ask("wife(X, Y)?"); len(got) != 20 {
		t.Errorf("%d answers", len(got))
	}
}

// TestFactEditMaxFacts: a fact edit whose update would derive more than
// MaxFacts facts is 413 and leaves the store and the answers as they were;
// the next edit works.
func TestFactEditMaxFacts(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.MaxFacts = 6 })
	before := e.ask("wife(X, Y)?")
	code, b := e.do("POST", "/v1/facts", `{"add": [["a", "husband", "b"], ["c", "husband", "d"], ["e", "husband", "f"]], "remove": [["hal", "father", "ida"]]}`)
	if code != http.StatusRequestEntityTooLarge {
		t.Fatalf("%d %s", code, b)
	}
	sameAnswers(t, "wife after the refused edit", e.ask("wife(X, Y)?"), before)
	sameAnswers(t, "husband after the refused edit", e.ask("husband(X, Y)?"), fresh(t, graphOf(t, testGraph), nil, "husband(X, Y)?"))
	sameAnswers(t, "grand after the refused edit", e.ask("grand(X, Y)?"), answers{"hal jon": 0.9})
	e.mustDo(200, "POST", "/v1/facts", `{"add": [["a", "husband", "b"]]}`)
	g := append(graphOf(t, testGraph), graphOf(t, "a husband b")...)
	for _, q := range []string{"wife(X, Y)?", "grand(X, Y)?"} {
		sameAnswers(t, q, e.ask(q), fresh(t, g, []string{e.rules}, q))
	}
}

// TestRuleWarnings: an added rule over an unknown body predicate is
// applied, with a warning and a did-you-mean.
func TestRuleWarnings(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	var up wire.Update
	json.Unmarshal(e.mustDo(200, "POST", "/v1/rules", `{"add": ["0.5 :: spouse(X, Y) :- husbnd(Y, X)."]}`), &up)
	if len(up.Warnings) != 1 || !strings.Contains(up.Warnings[0], "husbnd is not a relation") || !strings.Contains(up.Warnings[0], "did you mean husband?") {
		t.Errorf("warnings: %q", up.Warnings)
	}
	up = wire.Update{}
	json.Unmarshal(e.mustDo(200, "POST", "/v1/rules", `{"add": ["0.5 :: spouse(X, Y) :- husband(Y, X)."]}`), &up)
	if len(up.Warnings) != 0 || up.Added != 2 {
		t.Errorf("%+v", up)
	}
}

// TestQueryCheckerFollowsEdits: queries are checked against the predicates
// known at the last update (one checker per state, not one per query): a
// predicate that an added rule defines can be asked at once, and one whose
// only rule is removed is unknown again.
func TestQueryCheckerFollowsEdits(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	e.undefined("brand_new(X, Y)?")
	e.mustDo(http.StatusOK, "POST", "/v1/rules", `{"add": ["brand_new(X, Y) :- husband(X, Y)."]}`)
	if b := e.mustDo(http.StatusOK, "POST", "/v1/query", `{"query": "brand_new(X, Y)?"}`); string(b) == "[]\n" {
		t.Error("no answer once a rule defines brand_new")
	}
	e.mustDo(http.StatusOK, "POST", "/v1/rules", `{"remove": ["brand_new(X, Y) :- husband(X, Y)."]}`)
	e.undefined("brand_new(X, Y)?")
}

// undefined asks q, over a predicate that nothing defines and that is no
// likely typo: the answer is empty, with a warning header.
func (e *testEnv) undefined(q string) {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.ts.URL+"/v1/query", strings.NewReader(`{"query": "`+q+`"}`))
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(b)) != "[]" || !strings.Contains(resp.Header.Get("Warning"), "nothing defines") {
		e.t.Errorf("%s: %d %q, Warning %q; want 200, [] and a warning", q, resp.StatusCode, b, resp.Header.Get("Warning"))
	}
}
