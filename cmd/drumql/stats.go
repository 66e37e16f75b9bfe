package main

import (
	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

type statsCmd struct {
	Format string `enum:"table,json" default:"table" help:"Output format: table or json."`
}

func (c *statsCmd) Run(e *env) error {
	st, err := e.openStore(true)
	if err != nil {
		return err
	}
	defer st.Close()
	sum, err := store.Summarize(e.ctx, st)
	if err != nil {
		return err
	}
	rep := wire.NewStats(sum)
	if c.Format == "json" {
		return writeJSON(e.stdout, rep)
	}
	return rep.WriteTable(e.stdout, e.cli.DB)
}
