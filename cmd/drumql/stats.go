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

// statsReport is the JSON form of drumql stats.
type statsReport struct {
	Entities     int             `json:"entities"`
	Symbols      int             `json:"symbols"`
	Relations    int             `json:"relations"`
	BaseFacts    int             `json:"base_facts"`
	DerivedFacts int             `json:"derived_facts"`
	PerRelation  []wire.Relation `json:"per_relation"`
	Splits       map[string]int  `json:"splits"`
	// DiskBytes and ReclaimableBytes are the store's size on disk and the
	// part of it that compactions free (absent for an in-memory store).
	DiskBytes        *int64 `json:"disk_bytes,omitempty"`
	ReclaimableBytes *int64 `json:"reclaimable_bytes,omitempty"`
}

func (c *statsCmd) Run(e *env) error {
	st, err := e.openStore(true)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := collectStats(e, st)
	if err != nil {
		return err
	}
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

func collectStats(e *env, st store.Store) (*statsReport, error) {
	rels, err := st.Relations()
	if err != nil {
		return nil, err
	}
	n, err := st.NumSymbols()
	if err != nil {
		return nil, err
	}
	snap, err := st.Snapshot(e.ctx)
	if err != nil {
		return nil, err
	}
	rep := &statsReport{Entities: len(snap.Entities), Symbols: n, Relations: len(rels), Splits: map[string]int{}, PerRelation: []wire.Relation{}}
	for _, r := range rels {
		rep.BaseFacts += r.Base
		rep.DerivedFacts += r.Derived
		rep.PerRelation = append(rep.PerRelation, wire.NewRelation(r))
	}
	names, err := st.Splits()
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		k := 0
		for _, err := range st.Split(name) {
			if err != nil {
				return nil, err
			}
			k++
		}
		rep.Splits[name] = k
	}
	if du, ok := st.(interface {
		DiskUsage() (store.DiskUsage, error)
	}); ok {
		u, err := du.DiskUsage()
		if err != nil {
			return nil, err
		}
		rep.DiskBytes, rep.ReclaimableBytes = &u.Bytes, &u.Reclaimable
	}
	return rep, nil
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
