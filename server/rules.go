package server

import (
	"errors"
	"fmt"
	"net/http"
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
	var out []wire.Rule
	v := s.reading(func(v *version) { out = ruleInfos(v, head) })
	s.tag(w, v.n)
	writeJSON(w, http.StatusOK, out)
}

// ruleInfos lists the loaded rules of head (all: "") in version v, with
// the comments of its rule files.
func ruleInfos(v *version, head string) []wire.Rule {
	// each file is read and split once per program (a mined file has
	// thousands of rules)
	files := v.rules.lines()
	out := []wire.Rule{}
	for _, rule := range v.prog.Rules {
		if head != "" && rule.Head.Pred != head {
			continue
		}
		out = append(out, wire.NewRule(rule, files[rule.Pos.File]))
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
	s.wmu.Lock()
	defer s.wmu.Unlock()
	start := time.Now()
	cur := s.cur.Load()
	old := cur.prog
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
	// The versions of the old program keep the lines of its files, then
	// the files change, then the new version is published (with the
	// files as they are, written or not: the store has the update).
	cur.rules.lines()
	werr := plan.write()
	v := s.publish(&next)
	if werr != nil {
		writeError(w, http.StatusInternalServerError, apiError{Error: fmt.Sprintf("the update is applied and stored, but the rule files could not be written (%v): the next start loads the files as they are", werr)})
		return
	}
	resp := wire.NewUpdate(ch, time.Since(start), MaxListedFacts)
	resp.RulesAdded, resp.RulesRemoved = len(adds), len(gone)
	resp.Warnings = s.unknownBody(&next, req.Add, adds)
	resp.Version = v
	s.tag(w, v)
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
// typo; prog is the program after the edit. The caller holds wmu.
func (s *Server) unknownBody(prog *datalog.Program, texts []string, adds []datalog.Rule) []string {
	known := map[string]bool{}
	var names []string
	if rels, err := s.st.Relations(); err == nil {
		for _, r := range rels {
			known[r.Name] = true
			names = append(names, r.Name)
		}
	}
	for _, r := range prog.Rules {
		if !known[r.Head.Pred] {
			names = append(names, r.Head.Pred)
		}
		known[r.Head.Pred] = true
	}
	for _, f := range prog.Facts {
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
