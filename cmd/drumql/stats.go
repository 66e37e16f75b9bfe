package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

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
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	hw := tabwriter.NewWriter(e.stdout, 0, 0, 1, ' ', 0)
	fmt.Fprintf(hw, "store:\t%s\nentities:\t%d\nrelations:\t%d\nbase facts:\t%d\nderived facts:\t%d\n",
		e.cli.DB, rep.Entities, rep.Relations, rep.BaseFacts, rep.DerivedFacts)
	if rep.DiskBytes != nil {
		fmt.Fprintf(hw, "on disk:\t%s (%s reclaimable)\n", humanBytes(*rep.DiskBytes), humanBytes(*rep.ReclaimableBytes))
	}
	if len(rep.Splits) > 0 {
		fmt.Fprint(hw, "splits:\t")
		for i, name := range sortedKeys(rep.Splits) {
			if i > 0 {
				fmt.Fprint(hw, " ")
			}
			fmt.Fprintf(hw, "%s=%d", name, rep.Splits[name])
		}
		fmt.Fprintln(hw)
	}
	hw.Flush()
	fmt.Fprintln(e.stdout)
	w := len("relation")
	for _, r := range rep.PerRelation {
		w = max(w, len(r.Name))
	}
	fmt.Fprintf(e.stdout, "%-*s  %5s  %9s  %9s\n", w, "relation", "arity", "base", "derived")
	for _, r := range rep.PerRelation {
		fmt.Fprintf(e.stdout, "%-*s  %5d  %9d  %9d\n", w, r.Name, r.Arity, r.Base, r.Derived)
	}
	return nil
}

// humanBytes formats a byte count with a binary unit.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
