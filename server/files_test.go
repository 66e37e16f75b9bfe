package server

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/drumql/drumql/wire"
)

// multipartOf is a multipart body with a part per name and contents (form
// name and file name alike), and its content type.
func multipartOf(t *testing.T, parts ...string) (string, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for i := 0; i+1 < len(parts); i += 2 {
		w, err := mw.CreateFormFile(parts[i], parts[i])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(parts[i+1]))
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String(), mw.FormDataContentType()
}

// TestLoadRetractFiles: POST /v1/load and /v1/retract read triple files
// from the body (TSV, or N-Triples by the part's name), count as drumql
// load and retract do, update the derived facts, and change nothing when
// a line is bad (every bad line named by the part's name); GET
// /v1/summary counts as drumql stats does.
func TestLoadRetractFiles(t *testing.T) {
	e := newEnv(t, "marc_ueda husband alice_ortiz", "0.8 :: wife(A, B) :- husband(B, A).\n", nil)
	body, ctype := multipartOf(t, "/client/more.tsv", "bob\thusband\tcarol\nmarc_ueda\thusband\talice_ortiz\n", "x.nt", "<fred> <husband> <gina> .\n")
	var res FilesResult
	if err := json.Unmarshal(e.mustDo(200, "POST", "/v1/load", body, "Content-Type", ctype), &res); err != nil {
		t.Fatal(err)
	}
	if res.NewFacts != 2 || res.Skipped != 1 || res.NewSymbols != 4 || res.Added != 2 {
		t.Errorf("load: %+v, want 2 new facts, 1 skipped, 4 new symbols, 2 derived", res)
	}
	if got := e.ask("wife(gina, X)?"); len(got) != 1 {
		t.Errorf("wife(gina, X)? after the load: %v", got)
	}
	bad, ctype := multipartOf(t, "/client/a.tsv", "ok\thusband\tfine\n", "/client/b.tsv", "two\tfields\n")
	b := e.mustDo(400, "POST", "/v1/load", bad, "Content-Type", ctype)
	if msg := errorBody(t, b).Error; !strings.HasPrefix(msg, "nothing was loaded:\n/client/b.tsv:1: ") {
		t.Errorf("a bad line: %q", msg)
	}
	if got := e.ask("husband(ok, X)?"); len(got) != 0 {
		t.Errorf("the good file of a bad load was loaded: %v", got)
	}
	e.mustDo(400, "POST", "/v1/load", "bob\thusband\tcarol\n", "Content-Type", "text/plain")
	rm, ctype := multipartOf(t, "wrong.tsv", "bob\thusband\tcarol\nnobody\thusband\tnone\n")
	if err := json.Unmarshal(e.mustDo(200, "POST", "/v1/retract", rm, "Content-Type", ctype), &res); err != nil {
		t.Fatal(err)
	}
	if res.BaseRemoved != 1 || res.Missing != 1 || res.Removed != 1 {
		t.Errorf("retract: %+v, want 1 removed, 1 missing, 1 derived fact removed", res)
	}
	// the summary drumql stats prints counts what is left
	var sum wire.Stats
	if err := json.Unmarshal(e.mustDo(200, "GET", "/v1/summary", ""), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.BaseFacts != 2 || sum.DerivedFacts != 2 || sum.Entities != 4 || sum.Generation == nil {
		t.Errorf("summary: %+v, want 2 base and 2 derived facts over 4 entities, a generation", sum)
	}
}
