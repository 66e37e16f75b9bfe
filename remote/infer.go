package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/servefile"
	"github.com/drumql/drumql/wire"
)

// Infer asks the server that holds the store in db, if one does
// (internal/servefile), whether prog at the threshold min is the program
// whose materialisation it keeps (POST /v1/infer, with the token of
// $DRUMQL_TOKEN): the server keeps that materialisation current, so
// there is then nothing to derive, and Infer prints on w what drumql
// infer prints when nothing changed. Another program is the server's 409
// (an *Error): the store is left as it is. handled is false when no
// server holds the store.
func Infer(ctx context.Context, db string, prog *datalog.Program, min float64, w io.Writer) (handled bool, err error) {
	srv, ok := servefile.Read(db)
	if !ok {
		return false, nil
	}
	start := time.Now()
	body, err := json.Marshal(struct {
		Sum string  `json:"sum"`
		Min float64 `json:"min"`
	}{datalog.ProgramSum(prog), min})
	if err != nil {
		return true, err
	}
	if _, err := post(ctx, srv.URL+"/v1/infer", os.Getenv(Token), body); err != nil {
		return true, err
	}
	_, err = fmt.Fprintf(w, "+0 −0 ~0 derived facts in %s (nothing to update); stored in %s\n", wire.FormatDuration(time.Since(start)), db)
	return true, err
}
