package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/combine"
	"github.com/drumql/drumql/reasoner/maintain"
	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

// QueryRequest is the body of POST /v1/query.
type QueryRequest struct {
	// Query is an atom, such as "wife(X, marc_ueda)?" ("?" optional).
	Query string `json:"query"`
	// Top keeps the N best answers (0: all).
	Top int `json:"top,omitempty"`
	// Min drops answers below this confidence (0: none dropped beyond the
	// threshold the derived facts were stored at).
	Min float64 `json:"min,omitempty"`
	// Combine is "max", "noisy-or" or "grouped" ("": what the program's
	// @aggregate directive records for the predicate; policy.Combine, as
	// drumql query does).
	Combine string `json:"combine,omitempty"`
	// Explain attaches the best proof to every answer.
	Explain bool `json:"explain,omitempty"`
}

// ExplainRequest is the body of POST /v1/explain.
type ExplainRequest struct {
	// Fact is a ground atom, such as "wife(alice_ortiz, marc_ueda)".
	Fact string `json:"fact"`
}

// parseAtom parses a query or a fact as typed ("?" and a final "."
// optional); a syntax error is written as a 400 and ok is false.
func parseAtom(w http.ResponseWriter, text string) (datalog.Atom, bool) {
	if e := checkArity(text, ""); e != nil {
		writeError(w, http.StatusBadRequest, *e)
		return datalog.Atom{}, false
	}
	src := strings.TrimSuffix(strings.TrimSpace(text), ".")
	q, err := parser.ParseQuery(src)
	if err != nil {
		if ds, ok := errors.AsType[datalog.Diagnostics](err); ok {
			e := diagError(ds, "")
			e.File = ""
			writeError(w, http.StatusBadRequest, e)
		} else {
			writeError(w, http.StatusBadRequest, apiError{Code: CodeParse, Error: err.Error()})
		}
		return datalog.Atom{}, false
	}
	return q.Atom, true
}

// stored reports whether the store has facts of pred (its derived facts
// answer then; otherwise the program defines pred and nothing holds).
func stored(st store.Store, pred string) (bool, error) {
	rels, err := st.Relations()
	if err != nil {
		return false, err
	}
	for _, r := range rels {
		if r.Name == pred {
			return true, nil
		}
	}
	return false, nil
}

// check rejects a query over a predicate neither the store nor the
// program knows (404 with the did-you-mean) or with a wrong arity (400).
func (s *Server) check(w http.ResponseWriter, v *version, q datalog.Atom) bool {
	c := v.checker.Load()
	if c == nil {
		// Made once per version, not once per query: a mined program
		// has a hundred thousand rules.
		nc, err := reasoner.NewQueryChecker(v.st, v.prog)
		if err != nil {
			writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
			return false
		}
		v.checker.CompareAndSwap(nil, nc)
		c = nc
	}
	err := c.Check(q)
	if err == nil {
		return true
	}
	if errors.Is(err, reasoner.ErrUndefinedPredicate) {
		// Nothing defines the predicate and it is no likely typo: the
		// answer is empty, with the warning in a header.
		if ds, ok := errors.AsType[datalog.Diagnostics](err); ok && len(ds) > 0 {
			w.Header().Set("Warning", `199 drumql "`+strings.ReplaceAll(clip(ds[0].Msg), `"`, `'`)+`"`)
		}
		return true
	}
	status := http.StatusBadRequest
	if errors.Is(err, reasoner.ErrUnknownPredicate) && !defined(v, q.Pred) {
		status = http.StatusNotFound // rather than a wrong arity
	}
	if ds, ok := errors.AsType[datalog.Diagnostics](err); ok {
		var msgs []string
		for _, d := range ds {
			msgs = append(msgs, d.Msg)
		}
		writeError(w, status, apiError{Error: strings.Join(msgs, "\n")})
		return false
	}
	writeError(w, status, apiError{Error: err.Error()})
	return false
}

// defined reports whether pred is a relation of v's store or defined by
// its program.
func defined(v *version, pred string) bool {
	if ok, err := stored(v.st, pred); ok || err != nil {
		return ok
	}
	for _, r := range v.prog.Rules {
		if r.Head.Pred == pred {
			return true
		}
	}
	for _, f := range v.prog.Facts {
		if f.Atom.Pred == pred {
			return true
		}
	}
	return false
}

// evalError writes the response of a failed query or explanation.
func (s *Server) evalError(w http.ResponseWriter, ctx context.Context, err error) {
	switch {
	case ctx.Err() == context.DeadlineExceeded || errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, apiError{Code: CodeTimeout, Error: fmt.Sprintf("the query took longer than the limit of %s (--query-timeout) and was stopped", s.cfg.QueryTimeout)})
	case errors.Is(err, errTooManyAnswers):
		writeError(w, http.StatusRequestEntityTooLarge, apiError{Code: CodeLimit, Error: fmt.Sprintf("more than %d answers (--max-facts): a streamed answer is read out before it is written; narrow the query or ask for top", s.cfg.MaxFacts)})
	case errors.Is(err, reasoner.ErrTooManyFacts):
		writeError(w, http.StatusRequestEntityTooLarge, apiError{Code: CodeLimit, Error: fmt.Sprintf("the evaluation would derive more than %d facts (--max-facts) and was stopped", s.cfg.MaxFacts)})
	case errors.Is(err, reasoner.ErrMemoryLimit):
		s.memoryRefusal(w, err, "")
	case errors.Is(err, reasoner.ErrStringTooLong):
		writeError(w, http.StatusRequestEntityTooLarge, apiError{Code: CodeLimit, Error: err.Error()})
	case errors.Is(err, reasoner.ErrUnknownPredicate):
		writeError(w, http.StatusNotFound, apiError{Error: err.Error()})
	case errors.Is(err, reasoner.ErrInvalidProgram), errors.Is(err, reasoner.ErrNotGround):
		writeError(w, http.StatusBadRequest, apiError{Code: CodeParse, Error: err.Error()})
	case ctx.Err() != nil:
		writeError(w, http.StatusServiceUnavailable, apiError{Code: CodeCancelled, Error: "the request was cancelled"})
	default:
		writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
	}
}

// answers evaluates q over version v: a lookup of its stored facts (the
// materialisation is up to date), rescored by noisy-or or across groups
// of the program's rules when the combination says so
// (policy.Policy.Rescore).
func (s *Server) answers(ctx context.Context, v *version, q datalog.Atom, req QueryRequest) ([]reasoner.Answer, error) {
	ok, err := stored(v.st, q.Pred)
	if err != nil || !ok {
		return nil, err
	}
	opt := s.options()
	opt.Min, opt.Explain = req.Min, req.Explain
	var as []reasoner.Answer
	held := false
	comb, err := policy.Combine(req.Combine, v.prog, q.Pred)
	if err != nil {
		return nil, err
	}
	method := comb.Method
	// The store holds the program's fixpoint at the request's threshold
	// (the materialisation's, or none asked): noisy-or applies the
	// head's rules once to it, and they never derive an answer above its
	// stored confidence.
	overFixpoint := req.Min <= 0 || req.Min == v.min
	if !req.Explain {
		// From the materialisation in memory when it holds v, through
		// the relation's index: the same answers as the store's
		// (TestLookupAsStored), without scanning its derived facts; for
		// noisy-or, those that can be among the first top once
		// rescored.
		_, err = s.withM(v, func(m *maintain.Materialisation) error {
			var err error
			switch {
			case method == policy.Max:
				as, held, err = m.Lookup(ctx, q, req.Min, req.Top)
			case overFixpoint && method == policy.NoisyOr:
				as, held, err = m.LookupNoisyOr(ctx, q, req.Min, req.Top, comb.Top)
			default:
				as, held, err = m.Lookup(ctx, q, req.Min, 0)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if !held {
		if as, err = reasoner.Query(ctx, v.st, nil, q, opt); err != nil {
			return nil, err
		}
	}
	if method != policy.Max {
		var sn *combine.StoredNoisyOr
		if overFixpoint && method == policy.NoisyOr {
			if sn, err = s.storedNoisyOr(ctx, v); err != nil {
				return nil, err
			}
		}
		if as, err = v.policy().Rescore(ctx, q, as, comb, opt, sn, req.Top); err != nil {
			return nil, err
		}
	}
	if req.Top > 0 && len(as) > req.Top {
		as = as[:req.Top]
	}
	return as, nil
}

func (s *Server) query(w http.ResponseWriter, r *http.Request) {
	var req QueryRequest
	if !decode(w, r, &req) {
		return
	}
	switch {
	case req.Top < 0:
		writeError(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("top %d: must be 0 or more", req.Top)})
		return
	case req.Min < 0 || req.Min > 1:
		writeError(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("min %g: must be in [0, 1]", req.Min)})
		return
	case req.Combine != "" && req.Combine != policy.Max && req.Combine != policy.NoisyOr && req.Combine != policy.Grouped:
		writeError(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("combine %q: must be max, noisy-or or grouped", clip(req.Combine))})
		return
	}
	q, ok := parseAtom(w, req.Query)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.QueryTimeout)
	defer cancel()
	// The answers are read out from one version, into memory bounded by
	// the fact cap, and written after it is released: a client that reads
	// slowly, or stops reading, holds no version (nor its store view)
	// while its answer is written.
	stream := strings.Contains(r.Header.Get("Accept"), "application/x-ndjson")
	vars := wire.QueryVars(q)
	var as []reasoner.Answer
	var err error
	checked := false
	v := s.reading(func(v *version) {
		if checked = s.check(w, v, q); !checked {
			return
		}
		if stream {
			as, err = s.streamAnswers(ctx, v, q, vars, req)
		} else {
			as, err = s.answers(ctx, v, q, req)
		}
		if err == nil {
			err = ctx.Err()
		}
	})
	if !checked {
		return
	}
	if err != nil {
		s.evalError(w, ctx, err)
		return
	}
	s.tag(w, v.n)
	if stream {
		writeStream(w, vars, as, req.Explain)
		return
	}
	writeJSON(w, http.StatusOK, wire.Answers(vars, as, req.Explain))
}

// errTooManyAnswers stops a streamed answer of more than the fact cap.
var errTooManyAnswers = fmt.Errorf("more answers than the fact cap: %w", reasoner.ErrTooManyFacts)

// streamAnswers reads out the answers of a streamed query. A lookup with
// max is read as the store is scanned (unsorted, at most the fact cap of
// them: more is ErrTooManyFacts); otherwise the answers are those of
// answers, sorted. The caller holds v.
func (s *Server) streamAnswers(ctx context.Context, v *version, q datalog.Atom, vars []string, req QueryRequest) ([]reasoner.Answer, error) {
	comb, err := policy.Combine(req.Combine, v.prog, q.Pred)
	if err != nil {
		return nil, err
	}
	if len(vars) == 0 || comb.Method != policy.Max || req.Explain {
		return s.answers(ctx, v, q, req)
	}
	ok, err := stored(v.st, q.Pred)
	if err != nil || !ok {
		return nil, err
	}
	var as []reasoner.Answer
	over := false
	opt := s.options()
	opt.Min = req.Min
	err = reasoner.QueryFunc(ctx, v.st, nil, q, opt, func(a reasoner.Answer) bool {
		if len(as) == s.cfg.MaxFacts {
			over = true
			return false
		}
		as = append(as, reasoner.Answer{Values: slices.Clone(a.Values), Confidence: a.Confidence})
		return (req.Top <= 0 || len(as) < req.Top) && ctx.Err() == nil
	})
	if err == nil && over {
		err = errTooManyAnswers
	}
	return as, err
}

// writeStream writes answers one JSON object a line (a ground query's
// answer as one object), flushing every 256 lines.
func writeStream(w http.ResponseWriter, vars []string, as []reasoner.Answer, explain bool) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	if len(vars) == 0 {
		_ = enc.Encode(wire.GroundAnswer(as, explain))
		return
	}
	flusher, _ := w.(http.Flusher)
	for i, a := range as {
		if err := enc.Encode(wire.NewAnswer(vars, a, explain)); err != nil {
			return // the client went away
		}
		if (i+1)%256 == 0 && flusher != nil {
			flusher.Flush()
		}
	}
}

func (s *Server) explain(w http.ResponseWriter, r *http.Request) {
	var req ExplainRequest
	if !decode(w, r, &req) {
		return
	}
	fact, ok := parseAtom(w, req.Fact)
	if !ok {
		return
	}
	for _, t := range fact.Args {
		if t.Kind == datalog.Var {
			writeError(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("%s has variables: explain takes a fact (query with \"explain\": true for the proof of each answer)", clip(fact.String()))})
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.QueryTimeout)
	defer cancel()
	// The proof is read from one version and written after it is
	// released (as a query's answers are).
	var p *reasoner.Proof
	var err error
	checked := false
	v := s.reading(func(v *version) {
		if checked = s.check(w, v, fact); checked {
			p, err = s.proof(ctx, v, fact)
		}
	})
	if !checked {
		return
	}
	s.tag(w, v.n)
	switch {
	case errors.Is(err, errNotStored):
		writeError(w, http.StatusNotFound, apiError{Code: CodeNoProof, Error: fmt.Sprintf("%s does not hold: no fact of %s is stored or derived", clip(fact.String()), clip(datalog.QuoteName(fact.Pred)))})
	case errors.Is(err, reasoner.ErrNoProof):
		writeError(w, http.StatusNotFound, apiError{Code: CodeNoProof, Error: fmt.Sprintf("%s does not hold: it is neither a base fact nor derived", clip(fact.String()))})
	case err != nil:
		s.evalError(w, ctx, err)
	default:
		writeJSON(w, http.StatusOK, versionedProof{wire.NewProof(p), v.n})
	}
}

// versionedProof is the body of POST /v1/explain: the proof, and the
// version that answered.
type versionedProof struct {
	wire.Proof
	Version uint64 `json:"version"`
}

// errNotStored is the error of proof for a relation the store lacks.
var errNotStored = errors.New("no such relation in the store")

// proof is the best proof of fact from v's store. The caller holds v.
func (s *Server) proof(ctx context.Context, v *version, fact datalog.Atom) (*reasoner.Proof, error) {
	has, err := stored(v.st, fact.Pred)
	if err == nil && !has {
		err = errNotStored
	}
	if err != nil {
		return nil, err
	}
	p, err := reasoner.Explain(ctx, v.st, nil, fact, reasoner.Options{Threads: s.cfg.Threads, MaxMemory: s.cfg.MaxMemory, MaxString: s.cfg.MaxString})
	if err == nil {
		err = ctx.Err()
	}
	return p, err
}
