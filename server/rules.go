package server

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/suggest"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner/maintain"
	"github.com/drumql/drumql/wire"
)

// RulesRequest is the body of POST /v1/rules: rules to add and rules to
// remove, each one rule in the dialect (a removed rule is matched by its
// canonical identity, whatever its weight and variable names).
type RulesRequest struct {
	Add    []string `json:"add"`
	Remove []string `json:"remove"`
}

func (s *Server) listRules(w http.ResponseWriter, r *http.Request) {
	head := r.URL.Query().Get("head")
	// Read under the lock (an edit rewrites the files the comments are
	// read from), written after it.
	s.mu.RLock()
	out, version := s.ruleInfos(head), s.version
	s.mu.RUnlock()
	s.tag(w, version)
	writeJSON(w, http.StatusOK, out)
}

// ruleInfos lists the loaded rules of head (all: ""). The caller holds
// the read lock.
func (s *Server) ruleInfos(head string) []wire.Rule {
	prog := s.prog
	// each file is read and split once (a mined file has thousands of
	// rules)
	files := map[string][]string{}
	out := []wire.Rule{}
	for _, rule := range prog.Rules {
		if head != "" && rule.Head.Pred != head {
			continue
		}
		f := rule.Pos.File
		lines, ok := files[f]
		if !ok && f != "" {
			if src, err := os.ReadFile(f); err == nil {
				lines = strings.Split(string(src), "\n")
			}
			files[f] = lines
		}
		out = append(out, wire.NewRule(rule, lines))
	}
	return out
}

// parseRule parses the text of one rule; item names it in errors.
func parseRule(text, item string) (datalog.Rule, *apiError) {
	if e := checkArity(text, item); e != nil {
		return datalog.Rule{}, e
	}
	p, err := parser.ParseString(item, text)
	if err != nil {
		if ds, ok := errors.AsType[datalog.Diagnostics](err); ok {
			e := diagError(ds, item)
			return datalog.Rule{}, &e
		}
		return datalog.Rule{}, &apiError{Error: err.Error(), File: item}
	}
	if len(p.Rules) != 1 || len(p.Facts)+len(p.Queries) > 0 {
		return datalog.Rule{}, &apiError{Error: fmt.Sprintf("%s: want one rule, got %d rules, %d facts and %d queries", item, len(p.Rules), len(p.Facts), len(p.Queries)), File: item}
	}
	return p.Rules[0], nil
}

// editRules is POST /v1/rules.
func (s *Server) editRules(w http.ResponseWriter, r *http.Request) {
	var req RulesRequest
	if !decode(w, r, &req) {
		return
	}
	if len(req.Add)+len(req.Remove) == 0 {
		writeError(w, http.StatusBadRequest, apiError{Error: "nothing to do: give \"add\" or \"remove\", lists of rules"})
		return
	}
	adds, removes, e := parseEdit(req)
	if e != nil {
		writeError(w, http.StatusBadRequest, *e)
		return
	}
	if len(adds) > 0 && s.cfg.Edits == "" {
		writeError(w, http.StatusBadRequest, apiError{Error: "rules cannot be added: the server has no edits file"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	old := s.prog
	// The loaded rules to remove, by index.
	gone, status, e := removedRules(old, removes, req.Remove)
	if e != nil {
		writeError(w, status, *e)
		return
	}
	// The new program, checked with the added rules at their positions in
	// the request, so that a problem is reported there; an invalid rule
	// (a weight out of range) is that error, loaded already or not.
	next := *old
	next.Rules = append(keptRules(old, gone), adds...)
	if ds := datalog.Validate(&next); ds.HasErrors() {
		writeError(w, http.StatusBadRequest, diagError(editErrors(ds), ""))
		return
	}
	if e := checkAdded(old, gone, adds, req.Add); e != nil {
		writeError(w, http.StatusConflict, *e)
		return
	}
	// The files as they will be: spans cut, rules appended.
	plan, err := s.planFiles(old, gone, adds)
	if err != nil {
		writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	plan.place(&next, old, gone, adds)
	// Validated above: a mined program is not validated twice.
	ch, err := s.apply(r.Context(), maintain.Delta{Program: &next, Validated: true})
	if err != nil {
		s.rebuild() // the store has the state before the edit
		s.updateError(w, err)
		return
	}
	s.prog = &next
	s.dropPrepared()
	if err := plan.write(); err != nil {
		writeError(w, http.StatusInternalServerError, apiError{Error: fmt.Sprintf("the update is applied and stored, but the rule files could not be written (%v): the next start loads the files as they are", err)})
		return
	}
	resp := wire.NewUpdate(ch, time.Since(start), MaxListedFacts)
	resp.RulesAdded, resp.RulesRemoved = len(adds), len(gone)
	resp.Warnings = s.unknownBody(req.Add, adds)
	resp.Version = s.version
	s.tag(w, s.version)
	writeJSON(w, http.StatusOK, resp)
}

// parseEdit parses the rules a POST /v1/rules request adds and removes;
// the error names the first item that is not one rule.
func parseEdit(req RulesRequest) (adds, removes []datalog.Rule, e *apiError) {
	for i, text := range req.Add {
		rule, bad := parseRule(text, fmt.Sprintf("add[%d]", i))
		if bad != nil {
			return nil, nil, bad
		}
		adds = append(adds, rule)
	}
	for i, text := range req.Remove {
		rule, bad := parseRule(text, fmt.Sprintf("remove[%d]", i))
		if bad != nil {
			return nil, nil, bad
		}
		removes = append(removes, rule)
	}
	return adds, removes, nil
}

// removedRules finds the loaded rule of old each of removes is (texts are
// the rules as sent) and returns their indexes in old.Rules. A rule that
// is not loaded is an error with status 404.
func removedRules(old *datalog.Program, removes []datalog.Rule, texts []string) (gone map[int]bool, status int, e *apiError) {
	gone = map[int]bool{}
	for i, rm := range removes {
		k := rm.Key()
		found := -1
		for j := range old.Rules {
			if !gone[j] && old.Rules[j].Key() == k {
				found = j
				break
			}
		}
		if found < 0 {
			return nil, http.StatusNotFound, &apiError{Error: fmt.Sprintf("remove[%d]: %s is not a loaded rule (GET /v1/rules lists them)", i, clip(texts[i])), File: fmt.Sprintf("remove[%d]", i)}
		}
		gone[found] = true
	}
	return gone, 0, nil
}

// checkAdded returns an error when a rule of adds (texts: as sent) is
// loaded already and not removed, or added twice.
func checkAdded(old *datalog.Program, gone map[int]bool, adds []datalog.Rule, texts []string) *apiError {
	keys := map[string]bool{}
	for j := range old.Rules {
		if !gone[j] {
			keys[old.Rules[j].Key()] = true
		}
	}
	for i, a := range adds {
		k := a.Key()
		if keys[k] {
			return &apiError{Error: fmt.Sprintf("add[%d]: %s is loaded already (remove it in the same request to change its weight)", i, clip(texts[i])), File: fmt.Sprintf("add[%d]", i)}
		}
		keys[k] = true
	}
	return nil
}

// keptRules returns the rules of old an edit keeps, in their order.
func keptRules(old *datalog.Program, gone map[int]bool) []datalog.Rule {
	var kept []datalog.Rule
	for j := range old.Rules {
		if !gone[j] {
			kept = append(kept, old.Rules[j])
		}
	}
	return kept
}

// editErrors returns the errors of ds an edit reports: those of the first
// added rule that has an error, or all of them when no added rule has.
func editErrors(ds datalog.Diagnostics) datalog.Diagnostics {
	item := ""
	for _, d := range ds {
		if d.Severity == datalog.Error && strings.HasPrefix(d.Pos.File, "add[") {
			item = d.Pos.File
			break
		}
	}
	var errs datalog.Diagnostics
	for _, d := range ds {
		if d.Severity == datalog.Error && (item == "" || d.Pos.File == item) {
			errs = append(errs, d)
		}
	}
	return errs
}

// unknownBody warns about the body predicates of the added rules that are
// neither relations of the store nor defined by the program: most often a
// typo. The caller holds the lock.
func (s *Server) unknownBody(texts []string, adds []datalog.Rule) []string {
	known := map[string]bool{}
	var names []string
	if rels, err := s.st.Relations(); err == nil {
		for _, r := range rels {
			known[r.Name] = true
			names = append(names, r.Name)
		}
	}
	for _, r := range s.prog.Rules {
		if !known[r.Head.Pred] {
			names = append(names, r.Head.Pred)
		}
		known[r.Head.Pred] = true
	}
	for _, f := range s.prog.Facts {
		known[f.Atom.Pred] = true
	}
	var out []string
	for i, r := range adds {
		var lits []*datalog.Literal
		r.BodyAtoms(func(l *datalog.Literal, _ bool) { lits = append(lits, l) })
		for _, l := range lits {
			if known[l.Atom.Pred] {
				continue
			}
			msg := fmt.Sprintf("add[%d]: %s: %s is not a relation of the store and no rule or fact defines it: the literal never holds",
				i, clip(texts[i]), clip(datalog.QuoteName(l.Atom.Pred)))
			if near := suggest.Nearest(l.Atom.Pred, names, 3); len(near) > 0 {
				for j := range near {
					near[j] = datalog.QuoteName(near[j])
				}
				msg += "; did you mean " + strings.Join(near, ", ") + "?"
			}
			out = append(out, msg)
		}
	}
	return out
}
