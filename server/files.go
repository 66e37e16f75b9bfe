package server

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

// FilesResult is the answer of POST /v1/load and /v1/retract: what the
// update changed, and the counts drumql load and retract print.
type FilesResult struct {
	wire.Update
	// NewFacts, Skipped and NewSymbols are the load's: the base facts
	// added, those already present and the names new to the store.
	NewFacts   int `json:"new_facts"`
	Skipped    int `json:"skipped"`
	NewSymbols int `json:"new_symbols"`
	// Missing are the facts to retract that the store did not have.
	Missing int `json:"missing"`
}

// loadFiles is POST /v1/load: triple files (TSV, or N-Triples for a part
// whose file name ends in .nt), each a part of a multipart/form-data body,
// added to the base facts together or not at all. The file names only
// choose the format and name the lines of errors: the server opens no file.
func (s *Server) loadFiles(w http.ResponseWriter, r *http.Request) { s.files(w, r, true) }

// retractFiles is POST /v1/retract: as /v1/load, the facts removed.
func (s *Server) retractFiles(w http.ResponseWriter, r *http.Request) { s.files(w, r, false) }

func (s *Server) files(w http.ResponseWriter, r *http.Request, load bool) {
	done := "retracted"
	if load {
		done = "loaded"
	}
	b, err := readParts(r)
	if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
		writeError(w, http.StatusRequestEntityTooLarge, apiError{Error: fmt.Sprintf("request body larger than %d bytes (--max-body): nothing was %s", mb.Limit, done)})
		return
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("nothing was %s:\n%s", done, err)})
		return
	}
	var add, rm []store.NamedTriple
	if load {
		add = b.Graph
	} else {
		rm = b.Graph
	}
	if len(add)+len(rm) == 0 {
		// nothing changes: the counts of an empty edit
		v := s.cur.Load().n
		s.tag(w, v)
		writeJSON(w, http.StatusOK, FilesResult{Update: wire.Update{Facts: []wire.ChangedFact{}, Version: v}})
		return
	}
	out, ls, rs, ok := s.changeFacts(w, r, add, rm)
	if ok {
		writeJSON(w, http.StatusOK, FilesResult{Update: out, NewFacts: ls.NewFacts, Skipped: ls.Skipped, NewSymbols: ls.NewSymbols, Missing: rs.Missing})
	}
}

// readParts reads the triples of every part of the multipart body, in
// order; the errors of all of them are joined. A part's form name (or,
// without one, its file name) names its lines in errors.
func readParts(r *http.Request) (*store.Batch, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return nil, errors.New("the body is multipart/form-data: one part a triple file")
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, err
	}
	var all store.Batch
	var errs []error
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		name := p.FormName() // the path as the client named it
		if name == "" {
			name = p.FileName()
		}
		b, err := store.ReadTriples(clip(name), p)
		if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, mb
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		all.Append(b)
	}
	return &all, errors.Join(errs...)
}
