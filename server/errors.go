package server

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
)

// The stable codes of error bodies (apiError.Code): a client decides on
// them, never on the message.
const (
	CodeBadRequest  = "bad_request"        // bad JSON, an unknown field, a value out of range
	CodeParse       = "parse"              // Datalog syntax or validation (with line and col)
	CodeAuth        = "auth"               // a missing or wrong token
	CodeNotFound    = "not_found"          // no such predicate, fact, rule or endpoint
	CodeNoProof     = "no_proof"           // explain: the fact does not hold (404)
	CodeMethod      = "method_not_allowed" // another method on a known path
	CodeConflict    = "conflict"           // an added rule is loaded already
	CodeTooLarge    = "too_large"          // a body over --max-body
	CodeLimit       = "limit"              // more than --max-facts derived or answered
	CodeMemoryLimit = "memory_limit"       // the memory limit was reached
	CodeTimeout     = "timeout"            // --query-timeout passed
	CodeCancelled   = "cancelled"          // the client left or the server is stopping
	CodeInternal    = "internal"           // anything else: a bug or a broken store
)

// codeOf is the code of an error response with status when no more
// precise one is given.
func codeOf(status int) string {
	switch status {
	case http.StatusBadRequest:
		return CodeBadRequest
	case http.StatusUnauthorized:
		return CodeAuth
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusMethodNotAllowed:
		return CodeMethod
	case http.StatusConflict:
		return CodeConflict
	case http.StatusRequestEntityTooLarge:
		return CodeTooLarge
	case http.StatusServiceUnavailable:
		return CodeCancelled
	}
	return CodeInternal
}

// apiError is the body of an error response.
type apiError struct {
	Error string `json:"error"`
	// Code is one of the Code constants: stable, for programs.
	Code string `json:"code"`
	// File, Line and Col locate a problem in the text sent (File names
	// the item of a list, such as "add[0]") or in a rule file.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// maxQuoted is the most bytes of a request's text an error message
// repeats (clip).
const maxQuoted = 200

// maxMessage caps a whole error message: messages quote input through
// clip, and this bounds those made elsewhere (several diagnostics, a
// reasoner's error naming an atom).
const maxMessage = 4 * maxQuoted

// clip returns s, or its first maxQuoted bytes (whole runes) and how long
// it was, for an error message.
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:cut], len(s))
}

// clipMessage bounds a whole message to maxMessage bytes.
func clipMessage(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (a message of %d bytes, cut)", s[:cut], len(s))
}

// writeJSON writes v with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// writeError writes e with status, its code by the status unless e has
// one, its message at most maxMessage bytes.
func writeError(w http.ResponseWriter, status int, e apiError) {
	if e.Code == "" {
		e.Code = codeOf(status)
		if status == http.StatusBadRequest && e.Line > 0 {
			e.Code = CodeParse
		}
	}
	e.Error = clipMessage(e.Error)
	writeJSON(w, status, e)
}

// decode reads the JSON body into v; on error it writes the response
// (400, or 413 for a body too large) and returns false.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(r.Body)
	if err == nil && !utf8.Valid(body) {
		// encoding/json would turn the bad bytes into U+FFFD, a name
		// nobody sent
		bad := len(body)
		for i := 0; i < len(body); {
			c, n := utf8.DecodeRune(body[i:])
			if c == utf8.RuneError && n <= 1 {
				bad = i
				break
			}
			i += n
		}
		writeError(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("bad JSON: invalid UTF-8 at byte %d", bad)})
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err == nil {
		err = dec.Decode(v)
	}
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if err == nil {
		return true
	}
	if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
		writeError(w, http.StatusRequestEntityTooLarge, apiError{Error: fmt.Sprintf("request body larger than %d bytes (--max-body)", mb.Limit)})
		return false
	}
	e := apiError{Error: "bad JSON: " + err.Error()}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		e.Error = "bad JSON: " + se.Error()
	}
	writeError(w, http.StatusBadRequest, e)
	return false
}

// diagError is the response of Datalog diagnostics: the first error, with
// its position; item names the list item the text came from.
func diagError(ds datalog.Diagnostics, item string) apiError {
	for _, d := range ds {
		if d.Severity == datalog.Error {
			f := d.Pos.File
			if item != "" {
				f = item
			}
			return apiError{Error: d.Msg, Code: CodeParse, File: f, Line: d.Pos.Line, Col: d.Pos.Col}
		}
	}
	return apiError{Error: ds.Error(), Code: CodeParse}
}

// bearer returns the token of an Authorization header with the Bearer
// scheme, whose name is case-insensitive (RFC 9110, 11.1), and whether
// there is one.
func bearer(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// hasToken reports whether r carries one of the tokens (an empty token
// never matches).
func hasToken(r *http.Request, tokens ...string) bool {
	got, ok := bearer(r.Header.Get("Authorization"))
	if !ok {
		return false
	}
	match := false
	for _, t := range tokens {
		if t != "" && subtle.ConstantTimeCompare([]byte(got), []byte(t)) == 1 {
			match = true
		}
	}
	return match
}

// auth requires the token, when there is one, on a request that changes
// something (the read token when it is the only one: a server that
// guards its reads guards its writes).
func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	need := s.cfg.Token
	if need == "" {
		need = s.cfg.ReadToken
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if need != "" && !hasToken(r, need) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="drumql"`)
			writeError(w, http.StatusUnauthorized, apiError{Error: "this request changes the store: it needs the header Authorization: Bearer TOKEN (the --token of drumql serve)"})
			return
		}
		s.holding.Add(1)
		defer s.holding.Add(-1)
		h(w, r)
	}
}

// read requires the read token (or the write token), when there is one,
// on a request that reads the store.
func (s *Server) read(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.ReadToken != "" && !hasToken(r, s.cfg.ReadToken, s.cfg.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="drumql"`)
			writeError(w, http.StatusUnauthorized, apiError{Error: "this server needs a token to read: the header Authorization: Bearer TOKEN (the --read-token or --token of drumql serve)"})
			return
		}
		s.holding.Add(1)
		defer s.holding.Add(-1)
		h(w, r)
	}
}

// memoryRefusal writes the answer of a request whose evaluation reached
// --max-memory (the memory the whole process holds): 413 when it was the
// only read or write being answered (it alone passes the limit: asking
// again would fail again), else 503 with Retry-After (others held memory
// too: it may pass once they are done). what ends the message.
func (s *Server) memoryRefusal(w http.ResponseWriter, err error, what string) {
	if s.holding.Load() > 1 {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, apiError{Code: CodeMemoryLimit, Error: err.Error() + " (--max-memory) while other requests held memory: try again" + what})
		return
	}
	writeError(w, http.StatusRequestEntityTooLarge, apiError{Code: CodeMemoryLimit, Error: err.Error() + " (--max-memory), with no other request in flight" + what})
}
