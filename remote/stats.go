package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/drumql/drumql/internal/servefile"
	"github.com/drumql/drumql/wire"
)

// Stats asks the server that holds the store in db, if one does
// (internal/servefile), for the store's summary (GET /v1/summary, with the
// token of $DRUMQL_TOKEN) and prints it on w in format (table or json) as
// drumql stats prints it. handled is false when no server holds the
// store.
func Stats(ctx context.Context, db, format string, w io.Writer) (handled bool, err error) {
	srv, ok := servefile.Read(db)
	if !ok {
		return false, nil
	}
	raw, err := send(ctx, http.MethodGet, srv.URL+"/v1/summary", os.Getenv(Token), "", http.NoBody)
	if err != nil {
		return true, err
	}
	var st wire.Stats
	if err := json.Unmarshal(raw, &st); err != nil {
		return true, fmt.Errorf("remote: %s: %w", srv.URL, err)
	}
	return true, st.Write(w, format, db)
}
