// Package remote is the command line's side of a running drumql serve:
// when the server holds the store (internal/servefile), drumql query,
// explain, stats, load and retract ask it through the HTTP API and print
// what they print without it.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/servefile"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/wire"
)

// Error is an error answer of the server: its status, its stable code and
// message, and the position of a Datalog error.
type Error struct {
	Status    int
	Code, Msg string
	Line, Col int
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return e.Msg
}

// Input reports whether the request was at fault (a 4xx other than a
// limit): the command's input error.
func (e *Error) Input() bool {
	return e.Status >= 400 && e.Status < 500 && e.Status != http.StatusRequestEntityTooLarge && e.Status != http.StatusUnauthorized
}

// Query is what drumql query asks: the atom's text and its options.
type Query struct {
	Text    string
	Top     int
	Min     float64
	Combine string
	Explain bool
	// Local is set for a query that needs what the API lacks (rule
	// files, a count, unordered answers): Answer leaves it to the caller.
	Local bool
}

// Answer asks q of the server that holds the store in db, if one does
// (internal/servefile), with the token of $DRUMQL_TOKEN, and prints the
// answers on w in format as drumql query prints its own
// (wire.PrintAnswers). handled is false when no server holds the store or
// q is Local: the caller then answers it itself.
func Answer(ctx context.Context, db string, q Query, format string, w io.Writer) (handled bool, err error) {
	srv, ok := servefile.Read(db)
	if !ok || q.Local {
		return false, nil
	}
	vars, as, err := Ask(ctx, srv.URL, os.Getenv(Token), q)
	if err != nil {
		return true, err
	}
	return true, wire.PrintAnswers(ctx, w, format, vars, as, q.Explain)
}

// Ask posts q to the server at url (token, if any, as the bearer) and
// returns the query's variables and answers as the reasoner gives them,
// best first. A confidence is the float32 the server wrote.
func Ask(ctx context.Context, url, token string, q Query) (vars []string, as []reasoner.Answer, err error) {
	pq, err := parser.ParseQuery(q.Text)
	if err != nil { // the server's 400, as drumql query says it
		return nil, nil, &Error{Status: http.StatusBadRequest, Code: "parse", Msg: err.Error()}
	}
	vars = wire.QueryVars(pq.Atom)
	body, err := json.Marshal(map[string]any{"query": q.Text, "top": q.Top, "min": q.Min, "combine": q.Combine, "explain": q.Explain})
	if err != nil {
		return nil, nil, err
	}
	raw, err := post(ctx, url+"/v1/query", token, body)
	if err != nil {
		return nil, nil, err
	}
	if len(vars) == 0 {
		var g struct {
			Holds      bool
			Confidence float64
			Proof      *wire.Proof
		}
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, nil, fmt.Errorf("remote: %s: %w", url, err)
		}
		if g.Holds {
			as = append(as, reasoner.Answer{Confidence: conf(g.Confidence), Proof: proof(g.Proof)})
		}
		return vars, as, nil
	}
	var rows []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, nil, fmt.Errorf("remote: %s: %w", url, err)
	}
	for _, r := range rows {
		a := reasoner.Answer{Values: make([]string, len(vars))}
		for i, v := range vars {
			if err := json.Unmarshal(r[v], &a.Values[i]); err != nil {
				return nil, nil, fmt.Errorf("remote: %s: answer %s: %w", url, v, err)
			}
		}
		var c float64
		var p *wire.Proof
		if err := json.Unmarshal(r["confidence"], &c); err != nil {
			return nil, nil, fmt.Errorf("remote: %s: confidence: %w", url, err)
		}
		if pr, ok := r["proof"]; ok {
			if err := json.Unmarshal(pr, &p); err != nil {
				return nil, nil, fmt.Errorf("remote: %s: proof: %w", url, err)
			}
		}
		a.Confidence, a.Proof = conf(c), proof(p)
		as = append(as, a)
	}
	return vars, as, nil
}

// conf is the stored float32 of a confidence the server wrote as its
// shortest text.
func conf(c float64) float64 { return float64(float32(c)) }

// proof converts a proof tree back.
func proof(p *wire.Proof) *reasoner.Proof {
	if p == nil {
		return nil
	}
	out := &reasoner.Proof{Fact: p.Fact, Confidence: conf(float64(p.Confidence)), Rule: p.Rule,
		Pos: datalog.Pos{File: p.File, Line: p.Line, Col: p.Col}, Weight: p.Weight, Base: p.Base, Negated: p.Negated, Aggregate: p.Aggregate}
	for i := range p.Children {
		out.Children = append(out.Children, proof(&p.Children[i]))
	}
	return out
}

// post sends body and returns the answer's body, or an *Error.
func post(ctx context.Context, url, token string, body []byte) ([]byte, error) {
	return send(ctx, http.MethodPost, url, token, "application/json", bytes.NewReader(body))
}

// send sends a request with body, of the content type ctype (none: ""),
// and returns the answer's body, or an *Error.
func send(ctx context.Context, method, url, token, ctype string, body io.Reader) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("remote: the server holding the store does not answer: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("remote: %s: %w", url, err)
	}
	if resp.StatusCode == http.StatusOK {
		return raw, nil
	}
	var e struct {
		Error, Code string
		Line, Col   int
	}
	if json.Unmarshal(raw, &e) != nil || e.Error == "" {
		e.Error = "HTTP " + strconv.Itoa(resp.StatusCode)
	}
	return nil, &Error{Status: resp.StatusCode, Code: e.Code, Msg: e.Error, Line: e.Line, Col: e.Col}
}
