package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/drumql/drumql/store"
)

// codeOfBody decodes an error body and checks its code.
func wantCode(t *testing.T, what string, b []byte, code string) apiError {
	t.Helper()
	e := errorBody(t, b)
	if e.Code != code {
		t.Errorf("%s: code %q, want %q: %s", what, e.Code, code, b)
	}
	return e
}

// TestNamesValidated: names POST /v1/facts refuses as load does (over
// store.MaxNameLen bytes, invalid UTF-8, a NUL byte) are 400, in the
// lists and in the text, and nothing is stored.
func TestNamesValidated(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.MaxBody = 1 << 22 })
	long := strings.Repeat("n", store.MaxNameLen+1)
	for _, body := range []string{
		`{"add": [["` + long + `", "husband", "x"]]}`,
		`{"text": "` + long + ` husband x"}`,
		`{"text": "husband(` + long + `, x)"}`,
		`{"add": [["a\u0000b", "husband", "x"]]}`,
		`{"text": "a\u0000b husband x"}`,
		"{\"add\": [[\"a\xffb\", \"husband\", \"x\"]]}",
		"{\"text\": \"a\xffb husband x\"}",
	} {
		b := e.mustDo(http.StatusBadRequest, "POST", "/v1/facts", body)
		if er := errorBody(t, b); len(er.Error) > maxMessage+100 {
			t.Errorf("%.40q: message of %d bytes", body, len(er.Error))
		}
	}
	st := e.mustDo(http.StatusOK, "GET", "/v1/stats", "")
	var s Stats
	if err := json.Unmarshal(st, &s); err != nil || s.BaseFacts != len(graphOf(t, testGraph)) {
		t.Errorf("base facts after refused edits: %d (%v)", s.BaseFacts, err)
	}
}

// TestBearerCaseInsensitive: the scheme's name is case-insensitive
// (RFC 9110); another scheme or token is 401 with the code auth.
func TestBearerCaseInsensitive(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.Token = "tok" })
	for i, h := range []string{"Bearer tok", "bearer tok", "BEARER  tok"} {
		body := fmt.Sprintf(`{"add": [["p%d", "husband", "q"]]}`, i)
		e.mustDo(http.StatusOK, "POST", "/v1/facts", body, "Authorization", h)
	}
	for _, h := range []string{"Basic tok", "Bearer tok2", "bearer", ""} {
		b := e.mustDo(http.StatusUnauthorized, "POST", "/v1/facts", `{"add": [["z", "husband", "q"]]}`, "Authorization", h)
		wantCode(t, h, b, CodeAuth)
	}
}

// TestReadToken: with a read token, reads need it (or the write token);
// writes need the write token; health, the API's description, the page
// and the metrics stay open.
func TestReadToken(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.Token, c.ReadToken = "w", "r" })
	q := `{"query": "wife(X, marc_ueda)?"}`
	wantCode(t, "query without a token", e.mustDo(http.StatusUnauthorized, "POST", "/v1/query", q), CodeAuth)
	wantCode(t, "stats with a wrong token", e.mustDo(http.StatusUnauthorized, "GET", "/v1/stats", "", "Authorization", "Bearer x"), CodeAuth)
	e.mustDo(http.StatusUnauthorized, "GET", "/v1/rules", "")
	e.mustDo(http.StatusUnauthorized, "POST", "/v1/explain", `{"fact": "wife(alice_ortiz, marc_ueda)"}`)
	e.mustDo(http.StatusOK, "POST", "/v1/query", q, "Authorization", "Bearer r")
	e.mustDo(http.StatusOK, "POST", "/v1/query", q, "Authorization", "Bearer w")
	e.mustDo(http.StatusUnauthorized, "POST", "/v1/facts", `{"add": [["a", "husband", "b"]]}`, "Authorization", "Bearer r")
	e.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["a", "husband", "b"]]}`, "Authorization", "Bearer w")
	for _, p := range []string{"/v1/health", "/v1/openapi.json", "/", "/metrics"} {
		e.mustDo(http.StatusOK, "GET", p, "")
	}
	// only a read token: it guards the writes too
	e2 := newEnv(t, testGraph, testRules, func(c *Config) { c.ReadToken = "r" })
	e2.mustDo(http.StatusUnauthorized, "POST", "/v1/facts", `{"add": [["a", "husband", "b"]]}`)
	e2.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["a", "husband", "b"]]}`, "Authorization", "Bearer r")
}

// TestWeightErrorFirst: a loaded rule added again with a weight out of
// range is the weight's error (400), not a conflict.
func TestWeightErrorFirst(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	b := e.mustDo(http.StatusBadRequest, "POST", "/v1/rules", `{"add": ["1.5 :: wife(A, B) :- husband(B, A)."]}`)
	if er := wantCode(t, "weight 1.5", b, CodeParse); !strings.Contains(er.Error, "weight") || er.File != "add[0]" {
		t.Errorf("weight 1.5: %s", b)
	}
	wantCode(t, "loaded already", e.mustDo(http.StatusConflict, "POST", "/v1/rules", `{"add": ["0.5 :: wife(A, B) :- husband(B, A)."]}`), CodeConflict)
}

// TestConfidenceText: confidences are written as the shortest text of
// their float32 (0.2887), in answers, proofs and updates.
func TestConfidenceText(t *testing.T) {
	e := newEnv(t, testGraph, "0.2887 :: wife(A, B) :- husband(B, A).\n", nil)
	noise := regexp.MustCompile(`0\.2887\d`)
	for _, b := range [][]byte{
		e.mustDo(http.StatusOK, "POST", "/v1/query", `{"query": "wife(X, marc_ueda)?"}`),
		e.mustDo(http.StatusOK, "POST", "/v1/query", `{"query": "wife(alice_ortiz, marc_ueda)?"}`),
		e.mustDo(http.StatusOK, "POST", "/v1/query", `{"query": "wife(X, marc_ueda)?"}`, "Accept", "application/x-ndjson"),
		e.mustDo(http.StatusOK, "POST", "/v1/explain", `{"fact": "wife(alice_ortiz, marc_ueda)"}`),
		e.mustDo(http.StatusOK, "POST", "/v1/facts", `{"add": [["z", "husband", "y"]]}`),
	} {
		if !strings.Contains(string(b), "0.2887") || noise.Match(b) {
			t.Errorf("want 0.2887 exactly: %s", b)
		}
	}
}

// TestErrorsQuoteLittle: an error repeats at most maxQuoted bytes of a
// long input, wherever the input lands in the message.
func TestErrorsQuoteLittle(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.MaxBody = 1 << 24 })
	long := strings.Repeat("a", 10<<20)
	run := regexp.MustCompile(fmt.Sprintf("a{%d}", maxQuoted+1))
	for _, c := range []struct {
		method, path, body string
	}{
		{"POST", "/v1/rules", `{"remove": ["wife(A, B) :- husband(B, ` + long + `)."]}`},
		{"POST", "/v1/rules", `{"add": ["wife(A, B) :- husband(B, A), ` + long + `(A)."]}`},
		{"POST", "/v1/query", `{"query": "wife(X, marc_ueda)?", "combine": "` + long + `"}`},
		{"POST", "/v1/query", `{"query": "` + long + `(X, Y)?"}`},
		{"POST", "/v1/query", `{"query": "wife(X, Y, ` + long + `)?"}`},
		{"POST", "/v1/explain", `{"fact": "wife(` + long + `, b)"}`},
		{"POST", "/v1/facts", `{"text": "wife(X, ` + long + `)"}`},
		{long[:1<<16], "/v1/query", `{}`},
	} {
		code, b := e.do(c.method, c.path, c.body)
		if len(b) > 2*maxMessage || run.Match(b) {
			t.Errorf("%s %.60s: %d, an answer of %d bytes quoting more than %d: %.300s", c.path, c.body, code, len(b), maxQuoted, b)
		}
	}
}

// TestHugeQueryRefusedEarly: a query of 125,000 variables (1 MB) is
// refused by checkArity, before the parser and the checker, whose cost
// grows faster than the text: the error names the store's arity limit.
func TestHugeQueryRefusedEarly(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	var b strings.Builder
	b.WriteString("wife(")
	for i := range 125_000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "X%d", i)
	}
	b.WriteString(")?")
	body, _ := json.Marshal(QueryRequest{Query: b.String()})
	if len(body) > DefaultMaxBody {
		t.Fatalf("body of %d bytes", len(body))
	}
	er := wantCode(t, "huge query", e.mustDo(http.StatusBadRequest, "POST", "/v1/query", string(body)), CodeParse)
	if !strings.Contains(er.Error, "more than 255 arguments") || er.Line != 1 || er.Col != 5 {
		t.Errorf("huge query: %+v", er)
	}
	// the same limit on a rule's atoms and a fact's
	rule := `{"add": ["big(` + strings.Repeat("X,", 300) + `X) :- wife(X, Y)."]}`
	er = wantCode(t, "huge rule", e.mustDo(http.StatusBadRequest, "POST", "/v1/rules", rule), CodeParse)
	if er.File != "add[0]" || !strings.Contains(er.Error, "255") {
		t.Errorf("huge rule: %+v", er)
	}
	// 255 arguments, quoted commas and commented ones do not count
	if e := checkArity(`p(`+strings.Repeat("a,", 254)+`a, "x,y") % ,,,`+"\n/* ,,,, */", ""); e == nil {
		t.Errorf("256 arguments not refused")
	}
	if e := checkArity(`p(`+strings.Repeat("a,", 254)+`"x,y") % `+strings.Repeat(",", 300)+"\n/* "+strings.Repeat(",", 300)+" */", ""); e != nil {
		t.Errorf("255 arguments refused: %+v", e)
	}
}

// TestMetricLabelsBounded: made-up methods and paths add no series to
// /metrics: the method label is one of HTTP's or "other".
func TestMetricLabelsBounded(t *testing.T) {
	e := newEnv(t, testGraph, testRules, nil)
	for i := range 50 {
		e.do(fmt.Sprintf("MADEUP%d", i), fmt.Sprintf("/v1/x%d", i), "")
		e.do(fmt.Sprintf("FOO%d", i), "/v1/query", "")
	}
	m := string(e.mustDo(http.StatusOK, "GET", "/metrics", ""))
	if strings.Contains(m, "MADEUP") || strings.Contains(m, "FOO") || strings.Contains(m, "/v1/x") {
		t.Errorf("metrics carry made-up labels")
	}
	if !strings.Contains(m, `method="other"`) {
		t.Errorf("no method=\"other\" series")
	}
}

// TestErrorCodes: every error body carries its stable code.
func TestErrorCodes(t *testing.T) {
	e := newEnv(t, testGraph, testRules, func(c *Config) { c.MaxBody = 1 << 10 })
	for _, c := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/v1/query", `{"query": `, 400, CodeBadRequest},
		{"POST", "/v1/query", `{"query": "wife(X, Y"}`, 400, CodeParse},
		{"POST", "/v1/query", `{"query": "wife(X, Y)?", "top": -1}`, 400, CodeBadRequest},
		{"POST", "/v1/query", `{"query": "wief(X, Y)?"}`, 404, CodeNotFound},
		{"POST", "/v1/query", `{"query": "` + strings.Repeat("x", 2000) + `"}`, 413, CodeTooLarge},
		{"PUT", "/v1/query", ``, 405, CodeMethod},
		{"GET", "/nowhere", ``, 404, CodeNotFound},
		{"POST", "/v1/rules", `{"add": ["wife(A, B) :- husband(B, A)."]}`, 409, CodeConflict},
		{"POST", "/v1/rules", `{"add": ["p(X) :- q(Y)."]}`, 400, CodeParse},
		{"POST", "/v1/rules", `{"remove": ["p(X) :- q(X)."]}`, 404, CodeNotFound},
		{"POST", "/v1/facts", `{"text": "a b"}`, 400, CodeParse},
		{"POST", "/v1/explain", `{"fact": "wife(bob, nobody)"}`, 404, CodeNoProof},
	} {
		code, b := e.do(c.method, c.path, c.body)
		if code != c.status {
			t.Errorf("%s %s %.40s: %d, want %d: %s", c.method, c.path, c.body, code, c.status, b)
			continue
		}
		wantCode(t, c.method+" "+c.path+" "+c.body[:min(len(c.body), 40)], b, c.code)
	}
	// openapi.json lists the codes
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Required   []string `json:"required"`
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapiJSON, &doc); err != nil {
		t.Fatal(err)
	}
	enum := doc.Components.Schemas["Error"].Properties["code"].Enum
	for _, c := range []string{CodeBadRequest, CodeParse, CodeAuth, CodeNotFound, CodeNoProof, CodeMethod, CodeConflict, CodeTooLarge, CodeLimit, CodeMemoryLimit, CodeTimeout, CodeCancelled, CodeInternal} {
		if !strings.Contains(strings.Join(enum, " "), c) {
			t.Errorf("openapi.json: the Error schema's code lacks %q", c)
		}
	}
}

// TestWriteErrorBounded: writeError bounds a message made elsewhere (a
// reasoner's or parser's, not clipped where it was made), and clip keeps
// whole runes.
func TestWriteErrorBounded(t *testing.T) {
	rec := httptest.NewRecorder()
	writeError(rec, http.StatusInternalServerError, apiError{Error: "x: " + strings.Repeat("é", 1<<20)})
	er := wantCode(t, "long message", rec.Body.Bytes(), CodeInternal)
	if len(er.Error) > maxMessage+60 || !utf8.ValidString(er.Error) {
		t.Errorf("a message of %d bytes (valid UTF-8: %v)", len(er.Error), utf8.ValidString(er.Error))
	}
	if c := clip(strings.Repeat("é", 300)); !utf8.ValidString(c) || len(c) > maxQuoted+30 {
		t.Errorf("clip: %q", c)
	}
}

// TestNumericOrder: answers of equal confidence list numbers by value,
// then names, with max and with noisy-or alike.
func TestNumericOrder(t *testing.T) {
	e := newEnv(t, "x has 10\nx has b\nx has 2\nx has 1\nx has a\n", "0.5 :: val(X, Y) :- has(X, Y).\n", nil)
	for _, comb := range []string{"max", "noisy-or"} {
		var rows []map[string]any
		b := e.mustDo(http.StatusOK, "POST", "/v1/query", `{"query": "val(x, Y)?", "combine": "`+comb+`"}`)
		if err := json.Unmarshal(b, &rows); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r["Y"].(string))
		}
		if strings.Join(got, " ") != "1 2 10 a b" {
			t.Errorf("%s: %v, want 1 2 10 a b", comb, got)
		}
	}
}
