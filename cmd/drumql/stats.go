package main

import (
	"github.com/drumql/drumql/remote"
	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

type statsCmd struct {
	Format string `enum:"table,json" default:"table" help:"Output format: table or json."`
	Digest bool   `help:"Print checksums of the derived facts instead (order-independent; by name; with and without confidences to 6 decimals)."`
}

func (c *statsCmd) Run(e *env) error {
	if !c.Digest {
		if ok, err := remote.Stats(e.ctx, e.cli.DB, c.Format, e.stdout); ok {
			return err // serve holds the store: it counts
		}
	}
	st, err := e.openStore(true)
	if err != nil {
		return err
	}
	defer st.Close()
	if c.Digest {
		return wire.WriteDigest(e.ctx, st, e.stdout, c.Format)
	}
	sum, err := store.Summarize(e.ctx, st)
	if err != nil {
		return err
	}
	return wire.NewStats(sum).Write(e.stdout, c.Format, e.cli.DB)
}
