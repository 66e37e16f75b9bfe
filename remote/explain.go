package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/drumql/drumql/internal/servefile"
	"github.com/drumql/drumql/wire"
)

// Fact is what drumql explain asks: the fact's text and the output format
// (text or json). Local is set when it needs what the API lacks (rule
// files, a threshold): Explain leaves it to the caller.
type Fact struct {
	Text, Format string
	Local        bool
}

// Explain asks the server that holds the store in db, if one does
// (internal/servefile), for the best proof of f (POST /v1/explain, with
// the token of $DRUMQL_TOKEN) and prints it on w as drumql explain prints
// the proof it finds in the store. A fact that does not hold (the code
// no_proof) is the command's failure, not its input error. handled is false when no server
// holds the store or f is Local.
func Explain(ctx context.Context, db string, f Fact, w io.Writer) (handled bool, err error) {
	srv, ok := servefile.Read(db)
	if !ok || f.Local {
		return false, nil
	}
	body, err := json.Marshal(map[string]string{"fact": f.Text})
	if err != nil {
		return true, err
	}
	raw, err := post(ctx, srv.URL+"/v1/explain", os.Getenv(Token), body)
	if re, ok := errors.AsType[*Error](err); ok && re.Code == "no_proof" {
		return true, errors.New(re.Msg) // as without a server: exit 1
	}
	if err != nil {
		return true, err
	}
	var p wire.Proof
	if err := json.Unmarshal(raw, &p); err != nil {
		return true, fmt.Errorf("remote: %s: %w", srv.URL, err)
	}
	rp := proof(&p)
	if f.Format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return true, enc.Encode(wire.NewProof(rp))
	}
	return true, wire.WriteProof(w, rp)
}
