package main

import (
	"fmt"
	"io"

	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

type verifyCmd struct{}

// Help is shown under the command's usage.
func (verifyCmd) Help() string {
	return `Reads the whole store read-only: the checksum of every block of every table,
then every key and value (each must decode, the reverse index must mirror the
forward one, the per-relation counts must match the facts). Prints what it
checked and exits 0, or names the damaged file and exits 3. Other readers may
run meanwhile.

Examples:
  drumql verify
  drumql --db kg.db verify`
}

func (c *verifyCmd) Run(e *env) error {
	st, err := e.openStore(true)
	if err != nil {
		return err
	}
	defer st.Close()
	db, ok := st.(*store.DB)
	if !ok {
		return fmt.Errorf("verify: %s is not an on-disk store", e.cli.DB)
	}
	vs, err := db.Verify(e.ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: ok (%d tables, %d keys checked)\n", e.cli.DB, vs.Tables, vs.Keys)
	return writeMaterialState(e.stdout, st)
}

// writeMaterialState says which materialisation the derived facts are
// (wire.MaterialLine), and checks the image of it (wire.VerifyImage).
func writeMaterialState(w io.Writer, st store.Store) error {
	rs, err := st.Relations()
	if err != nil {
		return err
	}
	n := 0
	for _, r := range rs {
		n += r.Derived
	}
	ms, err := st.Materialised()
	if err != nil {
		return err
	}
	fmt.Fprintln(w, wire.MaterialLine(n, ms))
	return wire.VerifyImage(w, st)
}
