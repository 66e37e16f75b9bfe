package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// FactsRequest is the body of POST /v1/facts: base facts to add and to
// remove, each a triple [subject, relation, object].
type FactsRequest struct {
	Add    [][]string `json:"add"`
	Remove [][]string `json:"remove"`
}

// triples checks and converts the triples of a request.
func triples(list [][]string, name string) ([]store.NamedTriple, error) {
	out := make([]store.NamedTriple, 0, len(list))
	for i, t := range list {
		if len(t) != 3 || t[0] == "" || t[1] == "" || t[2] == "" {
			return nil, fmt.Errorf("%s[%d]: a fact is [subject, relation, object], three names", name, i)
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
	if err == nil && len(add)+len(rm) == 0 {
		err = errors.New("nothing to do: give \"add\" or \"remove\", lists of [subject, relation, object]")
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	ctx := r.Context()
	var removed, added int
	if len(rm) > 0 {
		rs, err := s.st.Retract(ctx, &store.Batch{Graph: rm})
		if err != nil {
			writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
			return
		}
		removed = rs.Removed
	}
	if len(add) > 0 {
		ls, err := s.st.Load(ctx, &store.Batch{Graph: add}, nil)
		if err != nil {
			// the retraction is in: bring the derived facts along
			s.rebuild()
			writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
			return
		}
		added = ls.NewFacts
	}
	ms, err := s.st.Materialised()
	if err == nil && ms.Overflow {
		err = fmt.Errorf("more than %d base facts changed", store.MaxChangeLog)
	}
	if err != nil {
		s.rebuild()
		writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
		return
	}
	changes := make([]reasoner.FactChange, len(ms.Changes))
	for i, c := range ms.Changes {
		changes[i] = reasoner.FactChange{Fact: c.Fact, Added: c.Added}
	}
	ch, err := s.apply(ctx, reasoner.Delta{Base: changes})
	if err != nil {
		// Put the base facts back as they were, then the materialisation.
		s.undoBase(changes)
		s.rebuild()
		s.updateError(w, err)
		return
	}
	out := updateResponse(ch, time.Since(start))
	out.BaseAdded, out.BaseRemoved = added, removed
	writeJSON(w, http.StatusOK, out)
}

// undoBase reverses base changes in the store (best effort: on failure the
// next Catchup accounts for what is there).
func (s *Server) undoBase(changes []reasoner.FactChange) {
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

// apply applies d to the materialisation and stores what changed. On
// error the materialisation is discarded: the caller puts the store back
// as it was, if needed, and rebuilds it. The caller holds the write lock.
func (s *Server) apply(ctx context.Context, d reasoner.Delta) (reasoner.Change, error) {
	start := time.Now()
	s.dropPrepared() // the relations or the program change
	if s.m == nil {
		if _, err := s.materialise(ctx, s.prog); err != nil {
			return reasoner.Change{}, fmt.Errorf("the materialisation could not be rebuilt after a failed update: %w", err)
		}
	}
	ch, err := s.m.Apply(ctx, d)
	if err == nil {
		err = s.m.WriteUpdate(ctx, ch)
	}
	if err != nil {
		s.m = nil
		return ch, err
	}
	s.updated = time.Now()
	s.metrics.updates.Observe(time.Since(start).Seconds())
	return ch, nil
}

// rebuild rebuilds the materialisation from the store after a failed
// update (Apply's materialisation must then be discarded), as at start.
func (s *Server) rebuild() {
	s.dropPrepared()
	if _, err := s.materialise(context.Background(), s.prog); err != nil {
		s.m = nil // the next update tries again
	}
}

// updateError writes the response of a failed update.
func (s *Server) updateError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, reasoner.ErrTooManyFacts):
		writeError(w, http.StatusRequestEntityTooLarge, apiError{Error: fmt.Sprintf("the update would derive more than %d facts (--max-facts): nothing was changed", s.cfg.MaxFacts)})
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, apiError{Error: "the update was cancelled: nothing was changed"})
	case errors.Is(err, reasoner.ErrInvalidProgram):
		writeError(w, http.StatusBadRequest, apiError{Error: err.Error()})
	default:
		writeError(w, http.StatusInternalServerError, apiError{Error: err.Error()})
	}
}
