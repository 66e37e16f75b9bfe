package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"

	"github.com/drumql/drumql/internal/servefile"
)

// Token is the environment variable whose value the command line sends as
// the bearer token of its writes to a running server.
const Token = "DRUMQL_TOKEN"

// Files is what drumql load or retract asks: the triple files of Paths
// loaded (Load) or retracted. Inductive is load's --inductive, which the
// API does not do: Send leaves it to the caller.
type Files struct {
	Load, Inductive bool
	Paths           []string
}

// filesResult is the part of the answer of POST /v1/load and /v1/retract
// that drumql load and retract print.
type filesResult struct {
	NewFacts    int `json:"new_facts"`
	Skipped     int `json:"skipped"`
	NewSymbols  int `json:"new_symbols"`
	BaseRemoved int `json:"base_removed"`
	Missing     int `json:"missing"`
}

// Send loads or retracts the files of f through the server that holds
// the store in db, if one does (internal/servefile), with the token of
// $DRUMQL_TOKEN, and prints on w what drumql load or retract prints. The
// files' contents are streamed in the request; the server opens no file.
// handled is false when no server holds the store, for --inductive, or
// when a path is not a file (a dataset folder, whose splits the API does
// not load): the caller then goes on as without a server.
func Send(ctx context.Context, db string, f Files, w io.Writer) (handled bool, err error) {
	srv, ok := servefile.Read(db)
	if !ok || f.Inductive {
		return false, nil
	}
	load, paths := f.Load, f.Paths
	done, endpoint := "retracted", "/v1/retract"
	if load {
		done, endpoint = "loaded", "/v1/load"
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil { // as the command says it without a server: its input error
			return true, &Error{Status: http.StatusBadRequest, Msg: fmt.Sprintf("nothing was %s:\nstore: read %s: %v", done, p, err)}
		}
		if fi.IsDir() {
			return false, nil
		}
	}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() { pw.CloseWithError(writeParts(mw, paths)) }()
	raw, err := send(ctx, http.MethodPost, srv.URL+endpoint, os.Getenv(Token), mw.FormDataContentType(), pr)
	pr.Close()
	if err != nil {
		return true, err
	}
	var res filesResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return true, fmt.Errorf("remote: %s: %w", srv.URL, err)
	}
	if load {
		_, err = fmt.Fprintf(w, "loaded %d new facts (%d already present), %d new symbols into %s\n", res.NewFacts, res.Skipped, res.NewSymbols, db)
	} else {
		_, err = fmt.Fprintf(w, "removed %d base facts (%d not in the store) from %s\n", res.BaseRemoved, res.Missing, db)
	}
	return true, err
}

// writeParts writes every file of paths as a part of mw, named by its
// path, then closes mw.
func writeParts(mw *multipart.Writer, paths []string) error {
	for _, p := range paths {
		part, err := mw.CreateFormFile(p, p)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("remote: %w", err)
		}
		_, err = io.Copy(part, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("remote: %s: %w", p, err)
		}
	}
	return mw.Close()
}
