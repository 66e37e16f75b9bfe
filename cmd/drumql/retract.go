package main

import (
	"fmt"
	"io"

	"github.com/drumql/drumql/remote"
	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

// retractCmd is drumql retract.
type retractCmd struct {
	Paths []string `arg:"" name:"path" help:"TSV triple file (head<TAB>relation<TAB>tail) or N-Triples file (.nt) of the base facts to remove." type:"path"`
}

// Help is shown under the command's usage.
func (retractCmd) Help() string {
	return `Removes the base facts the files list, atomically: all of them or, on error or
interruption, none. Facts the store does not have are counted, not an error.
Splits (train, valid, test) are not touched, nor are the derived facts: a query
over them says they are out of date until drumql infer updates them (only what
the removed facts supported is derived again).

Examples:
  drumql retract wrong.tsv
  drumql infer families.dl`
}

func (c *retractCmd) Run(e *env) error {
	if ok, err := remote.Send(e.ctx, e.cli.DB, remote.Files{Paths: c.Paths}, e.stdout); ok {
		return err // serve holds the store: it retracts the facts
	}
	all, err := readPaths(c.Paths, "retracted")
	if err != nil {
		return err
	}
	st, err := e.openStoreForWriting(true)
	if err != nil {
		return err
	}
	defer st.Close()
	stats, err := st.Retract(e.ctx, all)
	if err != nil {
		return fmt.Errorf("retract: %w (the store is unchanged)", err)
	}
	noteCommitted()
	stale := staleNote(st)
	if err := st.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "removed %d base facts (%d not in the store) from %s\n", stats.Removed, stats.Missing, e.cli.DB)
	if stale != "" {
		fmt.Fprintln(e.stderr, stale)
	}
	return nil
}

// noteStale says on w when the store's derived facts are out of date (see
// staleNote).
func noteStale(w io.Writer, st store.Store) {
	if n := staleNote(st); n != "" {
		fmt.Fprintln(w, n)
	}
}

// staleNote is the note that the store's derived facts are out of date
// (wire.StaleNote); "" when they are not.
func staleNote(st store.Store) string {
	s, err := store.StalenessOf(st)
	if err != nil {
		return ""
	}
	return wire.StalenessNote(s)
}
