package server

import (
	"net/http"
	"time"

	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

// Stats is the answer of GET /v1/stats.
type Stats struct {
	Symbols      int             `json:"symbols"`
	Relations    int             `json:"relations"`
	BaseFacts    int             `json:"base_facts"`
	DerivedFacts int             `json:"derived_facts"`
	PerRelation  []wire.Relation `json:"per_relation"`
	Rules        int             `json:"rules"`
	ProgramFacts int             `json:"program_facts"`
	Files        []string        `json:"files"`
	Edits        string          `json:"edits,omitempty"`
	// Min is the threshold of the materialisation.
	Min float64 `json:"min"`
	// Version is the state's: 1 at start, one more for each update.
	Version    uint64    `json:"version"`
	LastUpdate time.Time `json:"last_update"`
	Started    time.Time `json:"started"`
}

// collect reads the counts of version v, which the caller holds.
func (s *Server) collect(v *version) (Stats, error) {
	rels, err := v.st.Relations()
	if err != nil {
		return Stats{}, err
	}
	n, err := v.st.NumSymbols()
	if err != nil {
		return Stats{}, err
	}
	out := Stats{Symbols: n, Relations: len(rels), PerRelation: []wire.Relation{}, Rules: len(v.prog.Rules),
		ProgramFacts: len(v.prog.Facts), Files: s.cfg.Files, Edits: s.cfg.Edits, Version: v.n, LastUpdate: v.updated, Started: s.started, Min: v.min}
	if out.Files == nil {
		out.Files = []string{}
	}
	for _, r := range rels {
		out.BaseFacts += r.Base
		out.DerivedFacts += r.Derived
		out.PerRelation = append(out.PerRelation, wire.NewRelation(r))
	}
	return out, nil
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	var st Stats
	var err error
	s.reading(func(v *version) { st, err = s.collect(v) })
	if err != nil {
		writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	s.tag(w, st.Version)
	writeJSON(w, http.StatusOK, st)
}

// summary is GET /v1/summary: the store's counts as drumql stats prints
// them (store.Summarize: entities, splits, size on disk, generation).
// It reads the whole graph of the current version, as drumql stats does.
func (s *Server) summary(w http.ResponseWriter, r *http.Request) {
	var sum *store.Summary
	var err error
	v := s.reading(func(v *version) { sum, err = store.Summarize(r.Context(), v.st) })
	if err != nil {
		writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	s.tag(w, v.n)
	writeJSON(w, http.StatusOK, struct {
		*wire.Stats
		Version uint64 `json:"version"`
	}{wire.NewStats(sum), v.n})
}
