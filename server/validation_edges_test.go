package server

import (
	"net/http"
	"strings"
	"testing"
)

// validationCase is a request the server must refuse, with the status and
// (a part of) the message it answers.
type validationCase struct {
	name         string
	method, path string
	body         string
	noEdits      bool   // the server has no edits file
	token        string // the server's --token
	maxBody      int64  // the server's --max-body
	status       int
	msg          string // a part of the error message
}

// validationCases are every refusal of a request the server validates:
// bad JSON, out-of-range options, Datalog that does not parse or is not
// one rule, edits it cannot make, and the routing and authentication
// errors. A refusal is a 4xx, never a 500.
var validationCases = []validationCase{
	{name: "query bad JSON", method: "POST", path: "/v1/query", body: `{`, status: http.StatusBadRequest, msg: "bad JSON: "},
	{name: "query unknown field", method: "POST", path: "/v1/query", body: `{"query": "wife(X, Y)?", "bogus": 1}`, status: http.StatusBadRequest, msg: `bad JSON: json: unknown field "bogus"`},
	{name: "query two values", method: "POST", path: "/v1/query", body: `{"query": "wife(X, Y)?"} {}`, status: http.StatusBadRequest, msg: "bad JSON: more than one JSON value"},
	{name: "query wrong type", method: "POST", path: "/v1/query", body: `{"query": 3}`, status: http.StatusBadRequest, msg: "bad JSON: "},
	{name: "top negative", method: "POST", path: "/v1/query", body: `{"query": "wife(X, Y)?", "top": -1}`, status: http.StatusBadRequest, msg: "top -1: must be 0 or more"},
	{name: "min below 0", method: "POST", path: "/v1/query", body: `{"query": "wife(X, Y)?", "min": -0.5}`, status: http.StatusBadRequest, msg: "min -0.5: must be in [0, 1]"},
	{name: "min above 1", method: "POST", path: "/v1/query", body: `{"query": "wife(X, Y)?", "min": 1.5}`, status: http.StatusBadRequest, msg: "min 1.5: must be in [0, 1]"},
	{name: "min just above 1", method: "POST", path: "/v1/query", body: `{"query": "wife(X, Y)?", "min": 1.0000001}`, status: http.StatusBadRequest, msg: "must be in [0, 1]"},
	{name: "combine unknown", method: "POST", path: "/v1/query", body: `{"query": "wife(X, Y)?", "combine": "sum"}`, status: http.StatusBadRequest, msg: `combine "sum": must be max, noisy-or or grouped`},
	{name: "query syntax", method: "POST", path: "/v1/query", body: `{"query": "wife(X, Y"}`, status: http.StatusBadRequest},
	{name: "query wrong arity", method: "POST", path: "/v1/query", body: `{"query": "wife(X)?"}`, status: http.StatusBadRequest},
	{name: "query misspelt predicate", method: "POST", path: "/v1/query", body: `{"query": "wif(X, Y)?"}`, status: http.StatusNotFound, msg: "wife"},
	{name: "explain wrong arity", method: "POST", path: "/v1/explain", body: `{"fact": "wife(bob)"}`, status: http.StatusBadRequest},
	{name: "explain unknown predicate", method: "POST", path: "/v1/explain", body: `{"fact": "nosuch(bob, carol)"}`, status: http.StatusNotFound},
	{name: "explain variables", method: "POST", path: "/v1/explain", body: `{"fact": "wife(X, marc_ueda)"}`, status: http.StatusBadRequest, msg: "has variables: explain takes a fact"},
	{name: "explain syntax", method: "POST", path: "/v1/explain", body: `{"fact": "wife("}`, status: http.StatusBadRequest},
	{name: "explain bad JSON", method: "POST", path: "/v1/explain", body: `[]`, status: http.StatusBadRequest, msg: "bad JSON: "},
	{name: "explain not holding", method: "POST", path: "/v1/explain", body: `{"fact": "wife(bob, carol)"}`, status: http.StatusNotFound, msg: "does not hold"},
	{name: "rules nothing to do", method: "POST", path: "/v1/rules", body: `{}`, status: http.StatusBadRequest, msg: `nothing to do: give "add" or "remove"`},
	{name: "rules bad JSON", method: "POST", path: "/v1/rules", body: `{"add": "x"}`, status: http.StatusBadRequest, msg: "bad JSON: "},
	{name: "rule added without edits file", method: "POST", path: "/v1/rules", body: `{"add": ["0.5 :: kin(A, B) :- aunt(A, B)."]}`, noEdits: true, status: http.StatusBadRequest, msg: "rules cannot be added: the server has no edits file"},
	{name: "rule removed without edits file", method: "POST", path: "/v1/rules", body: `{"remove": ["kin(A, B) :- aunt(A, B)."]}`, noEdits: true, status: http.StatusNotFound, msg: "remove[0]: "},
	{name: "rule syntax", method: "POST", path: "/v1/rules", body: `{"add": ["kin(A, B) :- "]}`, status: http.StatusBadRequest},
	{name: "two rules in one item", method: "POST", path: "/v1/rules", body: `{"add": ["kin(A, B) :- aunt(A, B). kin(A, B) :- uncle(A, B)."]}`, status: http.StatusBadRequest, msg: "add[0]: want one rule, got 2 rules"},
	{name: "no rule in an item", method: "POST", path: "/v1/rules", body: `{"add": ["% nothing"]}`, status: http.StatusBadRequest, msg: "add[0]: want one rule, got 0 rules, 0 facts and 0 queries"},
	{name: "a fact for a rule", method: "POST", path: "/v1/rules", body: `{"add": ["kin(a, b)."]}`, status: http.StatusBadRequest, msg: "want one rule, got 0 rules, 1 facts"},
	{name: "unsafe rule", method: "POST", path: "/v1/rules", body: `{"add": ["kin(A, B) :- aunt(A, C)."]}`, status: http.StatusBadRequest},
	{name: "remove not loaded", method: "POST", path: "/v1/rules", body: `{"remove": ["kin(A, B) :- aunt(A, B)."]}`, status: http.StatusNotFound, msg: "remove[0]: kin(A, B) :- aunt(A, B). is not a loaded rule"},
	{name: "add loaded", method: "POST", path: "/v1/rules", body: `{"add": ["0.9 :: grand(X, Z) :- father(X, Y), mother(Y, Z)."]}`, status: http.StatusConflict, msg: "is loaded already"},
	{name: "facts nothing to do", method: "POST", path: "/v1/facts", body: `{}`, status: http.StatusBadRequest, msg: `nothing to do: give "add" or "remove"`},
	{name: "facts short triple", method: "POST", path: "/v1/facts", body: `{"add": [["bob", "uncle"]]}`, status: http.StatusBadRequest, msg: "add[0]: a fact is [subject, relation, object], three names"},
	{name: "facts empty name", method: "POST", path: "/v1/facts", body: `{"remove": [["bob", "", "dan"]]}`, status: http.StatusBadRequest, msg: "remove[0]: a fact is [subject, relation, object]"},
	{name: "facts text arity", method: "POST", path: "/v1/facts", body: `{"text": "+ uncle(bob)"}`, status: http.StatusBadRequest},
	{name: "facts text variable", method: "POST", path: "/v1/facts", body: `{"text": "+ uncle(bob, X)"}`, status: http.StatusBadRequest},
	{name: "body too large", method: "POST", path: "/v1/query", body: `{"query": "wife(X, Y)?", "top": 1000000}`, maxBody: 8, status: http.StatusRequestEntityTooLarge, msg: "request body larger than 8 bytes (--max-body)"},
	{name: "no token", method: "POST", path: "/v1/facts", body: `{"add": [["a", "b", "c"]]}`, token: "s3cret", status: http.StatusUnauthorized, msg: "Authorization: Bearer TOKEN"},
	{name: "method not allowed", method: "GET", path: "/v1/query", status: http.StatusMethodNotAllowed, msg: "GET /v1/query: use POST"},
	{name: "no endpoint", method: "GET", path: "/v1/nothing", status: http.StatusNotFound, msg: "no endpoint GET /v1/nothing"},
}

// TestValidation sends every request of validationCases and checks the
// status, that the body is an error object, and its message.
func TestValidation(t *testing.T) {
	for _, c := range validationCases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, testGraph, testRules, func(cfg *Config) {
				if c.noEdits {
					cfg.Edits = ""
				}
				cfg.Token = c.token
				if c.maxBody > 0 {
					cfg.MaxBody = c.maxBody
				}
			})
			code, b := e.do(c.method, c.path, c.body)
			if code != c.status {
				t.Fatalf("%s %s %s: status %d, want %d: %s", c.method, c.path, c.body, code, c.status, b)
			}
			if got := errorBody(t, b); !strings.Contains(got.Error, c.msg) {
				t.Errorf("message %q, want it to contain %q", got.Error, c.msg)
			}
		})
	}
}
