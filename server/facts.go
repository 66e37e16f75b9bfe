package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/maintain"
	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

// FactsRequest is the body of POST /v1/facts: base facts to add and to
// remove, each a triple [subject, relation, object], and facts as text
// (see parseFactText).
type FactsRequest struct {
	Add    [][]string `json:"add"`
	Remove [][]string `json:"remove"`
	Text   string     `json:"text,omitempty"`
}

// parseFactText reads the facts of text, one a line: "rel(s, o)" (an atom
// of the dialect: names quoted as there, a final '.' optional) or "s rel
// o" (three names separated by spaces or tabs), after "-" to remove the
// fact or an optional "+" to add it. Blank lines and lines starting with
// '%' are skipped. The error of a bad line gives its line and column.
func parseFactText(text string) (add, remove []store.NamedTriple, e *apiError) {
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		body := strings.TrimLeft(line, " \t")
		col := len(line) - len(body) + 1 // in bytes, then runes below
		if body == "" || body[0] == '%' {
			continue
		}
		adding := true
		if body[0] == '+' || body[0] == '-' {
			adding = body[0] == '+'
			rest := strings.TrimLeft(body[1:], " \t")
			col += len(body) - len(rest)
			body = rest
		}
		t, at, msg := parseFactLine(body)
		if msg == "" {
			for _, n := range [3]string{t.S, t.R, t.O} {
				if err := store.CheckName(n); err != nil {
					msg, at = err.Error(), 1
					break
				}
			}
		}
		if msg != "" {
			c := utf8.RuneCountInString(line[:col-1]) + 1 + at - 1
			return nil, nil, &apiError{Error: msg, File: "text", Line: i + 1, Col: c}
		}
		if adding {
			add = append(add, t)
		} else {
			remove = append(remove, t)
		}
	}
	return add, remove, nil
}

// splitNames splits src at spaces and tabs into names, a name in double
// quotes (the dialect's escapes) possibly with spaces; it returns the
// names, the column (in runes, from 1) of each and of the end, and the
// column of an unterminated quote (0: none).
func splitNames(src string) (names []string, cols []int, bad int) {
	rs := []rune(src)
	for i := 0; i < len(rs); {
		if rs[i] == ' ' || rs[i] == '\t' {
			i++
			continue
		}
		start := i
		if rs[i] == '"' {
			for i++; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' {
					i++
				}
			}
			if i >= len(rs) {
				return nil, nil, start + 1
			}
			i++
			name, err := strconv.Unquote(string(rs[start:i]))
			if err != nil {
				return nil, nil, start + 1
			}
			names = append(names, name)
		} else {
			for i < len(rs) && rs[i] != ' ' && rs[i] != '\t' && rs[i] != '(' {
				i++
			}
			if i == start { // a '('
				i++
			}
			names = append(names, string(rs[start:i]))
		}
		cols = append(cols, start+1)
	}
	return names, append(cols, len(rs)+1), 0
}

// parseFactLine reads one fact, "rel(s, o)" or "s rel o"; on error it
// returns the message and its column in src (in runes, from 1).
func parseFactLine(src string) (store.NamedTriple, int, string) {
	if e := checkArity(src, ""); e != nil {
		return store.NamedTriple{}, e.Col, e.Error
	}
	names, cols, bad := splitNames(src)
	if bad > 0 {
		return store.NamedTriple{}, bad, "a quoted name without its closing quote"
	}
	if len(names) < 2 || names[1] != "(" {
		if len(names) == 3 {
			return store.NamedTriple{S: names[0], R: names[1], O: names[2]}, 0, ""
		}
		at := cols[len(names)] // after the last name
		if len(names) > 3 {
			at = cols[3]
		}
		return store.NamedTriple{}, at, fmt.Sprintf("%d names: a fact is rel(s, o) or s rel o, three names", len(names))
	}
	q, err := parser.ParseQuery(strings.TrimSuffix(strings.TrimSpace(src), "."))
	if err != nil {
		if ds, ok := errors.AsType[datalog.Diagnostics](err); ok {
			for _, d := range ds {
				if d.Severity == datalog.Error {
					return store.NamedTriple{}, d.Pos.Col, d.Msg
				}
			}
		}
		return store.NamedTriple{}, 1, err.Error()
	}
	a := q.Atom
	if len(a.Args) != 2 {
		return store.NamedTriple{}, a.Pos.Col, fmt.Sprintf("%s has %d arguments: a base fact is a triple, rel(s, o)", clip(a.String()), len(a.Args))
	}
	for _, t := range a.Args {
		if t.Kind != datalog.Symbol && t.Kind != datalog.Number {
			return store.NamedTriple{}, t.Pos.Col, fmt.Sprintf("%s: a fact has names, not variables or expressions", clip(a.String()))
		}
	}
	return store.NamedTriple{S: a.Args[0].Value, R: a.Pred, O: a.Args[1].Value}, 0, ""
}

// triples checks and converts the triples of a request.
func triples(list [][]string, name string) ([]store.NamedTriple, error) {
	out := make([]store.NamedTriple, 0, len(list))
	for i, t := range list {
		if len(t) != 3 || t[0] == "" || t[1] == "" || t[2] == "" {
			return nil, fmt.Errorf("%s[%d]: a fact is [subject, relation, object], three names", name, i)
		}
		for j, n := range t {
			if err := store.CheckName(n); err != nil {
				return nil, fmt.Errorf("%s[%d][%d]: %w", name, i, j, err)
			}
		}
		out = append(out, store.NamedTriple{S: t[0], R: t[1], O: t[2]})
	}
	return out, nil
}

// editFacts is POST /v1/facts.
func (s *Server) editFacts(w http.ResponseWriter, r *http.Request) {
	var req FactsRequest
	if !decode(w, r, &req) {
		return
	}
	add, err := triples(req.Add, "add")
	var rm []store.NamedTriple
	if err == nil {
		rm, err = triples(req.Remove, "remove")
	}
	if err == nil && req.Text != "" {
		ta, tr, e := parseFactText(req.Text)
		if e != nil {
			writeError(w, http.StatusBadRequest, *e)
			return
		}
		add, rm = append(add, ta...), append(rm, tr...)
	}
	if err == nil {
		err = s.longNames(add, rm)
	}
	if err == nil && len(add)+len(rm) == 0 {
		err = errors.New("nothing to do: give \"add\" or \"remove\", lists of [subject, relation, object], or \"text\", facts one a line")
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return
	}
	if out, _, _, ok := s.changeFacts(w, r, add, rm); ok {
		writeJSON(w, http.StatusOK, out)
	}
}

// longNames is the error of a fact with a name longer than
// Config.MaxString (--max-string), or nil.
func (s *Server) longNames(lists ...[]store.NamedTriple) error {
	for _, ts := range lists {
		for _, t := range ts {
			if n := max(len(t.S), len(t.R), len(t.O)); n > s.cfg.MaxString {
				return fmt.Errorf("a name of %d bytes, longer than the limit of %d (--max-string)", n, s.cfg.MaxString)
			}
		}
	}
	return nil
}

// changeFacts removes rm and adds add to the store's base facts and
// updates the materialisation. On error it writes the response and
// returns false; on success the caller writes out (the version is tagged).
func (s *Server) changeFacts(w http.ResponseWriter, r *http.Request, add, rm []store.NamedTriple) (out wire.Update, ls store.LoadStats, rs store.RetractStats, ok bool) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	start := time.Now()
	ctx := r.Context()
	var err error
	if len(rm) > 0 {
		rs, err = s.st.Retract(ctx, &store.Batch{Graph: rm})
		if err != nil {
			writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
			return out, ls, rs, false
		}
	}
	if len(add) > 0 {
		ls, err = s.st.Load(ctx, &store.Batch{Graph: add}, nil)
		if err != nil {
			// the retraction is in: bring the derived facts along
			s.rebuild()
			writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
			return out, ls, rs, false
		}
	}
	ms, err := s.st.Materialised()
	if err == nil && ms.Overflow {
		err = fmt.Errorf("more than %d base facts changed", store.MaxChangeLog)
	}
	if err != nil {
		s.rebuild()
		writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return out, ls, rs, false
	}
	changes := make([]maintain.FactChange, len(ms.Changes))
	for i, c := range ms.Changes {
		changes[i] = maintain.FactChange{Fact: c.Fact, Added: c.Added}
	}
	ch, err := s.apply(ctx, maintain.Delta{Base: changes})
	if err != nil {
		// Put the base facts back as they were, then the materialisation.
		s.undoBase(changes)
		s.rebuild()
		s.updateError(w, err)
		return out, ls, rs, false
	}
	v := s.publish(s.cur.Load().prog)
	out = wire.NewUpdate(ch, time.Since(start), MaxListedFacts)
	out.BaseAdded, out.BaseRemoved = ls.NewFacts, rs.Removed
	out.Version = v
	s.tag(w, v)
	return out, ls, rs, true
}

// undoBase reverses base changes in the store (best effort: on failure the
// next maintain.Catchup accounts for what is there).
func (s *Server) undoBase(changes []maintain.FactChange) {
	ctx := context.Background()
	var load, retract []store.NamedTriple
	for _, c := range changes {
		if len(c.Fact.Args) != 2 {
			continue
		}
		var names [3]string
		ids := [3]store.ID{c.Fact.Args[0], c.Fact.Rel, c.Fact.Args[1]}
		ok := true
		for i, id := range ids {
			n, err := s.st.Name(id)
			if err != nil {
				ok = false
				break
			}
			names[i] = n
		}
		if !ok {
			continue
		}
		t := store.NamedTriple{S: names[0], R: names[1], O: names[2]}
		if c.Added {
			retract = append(retract, t)
		} else {
			load = append(load, t)
		}
	}
	if len(retract) > 0 {
		_, _ = s.st.Retract(ctx, &store.Batch{Graph: retract})
	}
	if len(load) > 0 {
		_, _ = s.st.Load(ctx, &store.Batch{Graph: load}, nil)
	}
}

// apply applies d to the materialisation and stores what changed; the
// caller publishes the next version. On error the materialisation is
// discarded: the caller puts the store back as it was, if needed, and
// rebuilds it. The caller holds wmu.
func (s *Server) apply(ctx context.Context, d maintain.Delta) (maintain.Change, error) {
	start := time.Now()
	defer s.requestProcs()()
	// The collector runs as for infer while the update evaluates and
	// writes (the process's peak memory is there), and as before after it.
	defer sysmem.CollectOften(sysmem.InferGC)()
	if s.m == nil {
		if _, err := s.materialise(ctx, s.cur.Load().prog); err != nil {
			return maintain.Change{}, fmt.Errorf("the materialisation could not be rebuilt after a failed update: %w", err)
		}
	}
	// From here the readers of the current version read its store view:
	// the materialisation changes.
	s.setM(s.m, 0)
	s.img.fresh = false
	if s.hook != nil {
		s.hook(ctx, "applying")
	}
	ch, err := s.m.Apply(ctx, d)
	if err == nil {
		err = s.m.WriteUpdate(ctx, ch)
	}
	if err != nil {
		s.setM(nil, 0)
		return ch, err
	}
	if s.hook != nil {
		s.hook(ctx, "written")
	}
	s.metrics.updates.Observe(time.Since(start).Seconds())
	return ch, nil
}

// rebuild rebuilds the materialisation from the store after a failed
// update (Apply's materialisation must then be discarded), as at start;
// not once Serve is stopping. The store is as the current version has it:
// the materialisation holds that version again.
func (s *Server) rebuild() {
	if s.stopping.Load() {
		s.setM(nil, 0) // the store is as before the update; the next start catches up
		return
	}
	if _, err := s.materialise(context.Background(), s.cur.Load().prog); err != nil {
		s.setM(nil, 0) // the next update tries again
		return
	}
	s.setM(s.m, s.cur.Load().n)
}

// updateError writes the response of a failed update.
func (s *Server) updateError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, reasoner.ErrTooManyFacts):
		writeError(w, http.StatusRequestEntityTooLarge, apiError{Code: CodeLimit, Error: fmt.Sprintf("the update would derive more than %d facts (--max-facts): nothing was changed", s.cfg.MaxFacts)})
	case errors.Is(err, reasoner.ErrMemoryLimit):
		s.memoryRefusal(w, err, ": nothing was changed")
	case errors.Is(err, reasoner.ErrStringTooLong):
		writeError(w, http.StatusRequestEntityTooLarge, apiError{Code: CodeLimit, Error: err.Error() + ": nothing was changed"})
	case errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, apiError{Code: CodeTimeout, Error: "the update took too long and was stopped: nothing was changed"})
	case errors.Is(err, context.Canceled):
		writeError(w, http.StatusServiceUnavailable, apiError{Code: CodeCancelled, Error: "the update was cancelled: nothing was changed"})
	case errors.Is(err, reasoner.ErrInvalidProgram):
		writeError(w, http.StatusBadRequest, apiError{Code: CodeParse, Error: err.Error()})
	default:
		writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
	}
}
