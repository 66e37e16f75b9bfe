package server

import (
	"fmt"
	"net/http"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner"
)

// InferRequest is the body of POST /v1/infer: what `drumql infer FILES`
// beside the server would materialise, the fingerprint of its program
// (datalog.ProgramSum of the rule files merged) and its threshold.
type InferRequest struct {
	Sum string  `json:"sum"`
	Min float64 `json:"min"`
}

// InferResult is the answer of POST /v1/infer: the version whose derived
// facts are the program's materialisation.
type InferResult struct {
	Version uint64 `json:"version"`
}

// inferProgram is POST /v1/infer: `drumql infer FILES` run while the
// server holds the store. The server keeps the materialisation of its own
// program current after every update, so there is nothing to derive when
// FILES are that program (the same facts and rules with the same weights,
// in any order, and the same threshold): 200 and the version. Otherwise
// 409 conflict: the server's program changes through POST /v1/rules, or
// with the server stopped.
func (s *Server) inferProgram(w http.ResponseWriter, r *http.Request) {
	var req InferRequest
	if !decode(w, r, &req) {
		return
	}
	v := s.acquire()
	defer v.release()
	if req.Min <= 0 {
		req.Min = reasoner.Exact // a program without a threshold is evaluated exactly
	}
	switch {
	case req.Sum != v.programSum():
		writeError(w, http.StatusConflict, apiError{Error: "the rule files are not the program serve runs (its rule files and the rules added through the API): edit its rules with POST /v1/rules, or stop serve and run infer"})
	case req.Min != v.min:
		writeError(w, http.StatusConflict, apiError{Error: fmt.Sprintf("the threshold of the rule files (%s) is not the one serve materialises its program at (%s): stop serve and run infer, or start serve at theirs", threshold(req.Min), threshold(v.min))})
	default:
		s.tag(w, v.n)
		writeJSON(w, http.StatusOK, InferResult{Version: v.n})
	}
}

// programSum is datalog.ProgramSum of the version's program, computed once.
func (v *version) programSum() string {
	if p := v.sum.Load(); p != nil {
		return *p
	}
	sum := datalog.ProgramSum(&datalog.Program{})
	if v.prog != nil {
		sum = datalog.ProgramSum(v.prog)
	}
	v.sum.Store(&sum)
	return sum
}

// threshold names a materialisation's threshold in messages.
func threshold(min float64) string {
	if min <= reasoner.Exact {
		return "none: exact"
	}
	return fmt.Sprintf("%g", min)
}
