package main

import (
	"fmt"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/maintain"
	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

// update brings the stored derived facts up to date with prog and the base
// facts loaded or retracted since the last infer, through the reasoner's
// incremental maintenance. It reports false when infer must recompute
// instead: no derived facts with a record (the first infer), too many base
// changes, or a record that does not match the stored facts (a note on
// stderr says which, except for the first).
func (c *inferCmd) update(e *env, st store.Store, prog *datalog.Program, opt reasoner.Options, th policy.Threshold, pb *bar) (bool, error) {
	res, err := maintain.Catchup(e.ctx, st, prog, opt, maintain.CatchupOptions{Parse: parser.ParseString, Describe: pb.describe, Validated: true, NoImage: c.NoImage}) // loadPrograms validated prog
	if wire.Notes(e.stderr, res.Notes); err != nil {
		return true, err
	}
	if res.Recompute {
		if res.Why != "" {
			fmt.Fprintf(e.stderr, "note: %s: recomputing every derived fact\n", res.Why)
		}
		return false, nil
	}
	if res.Current {
		// The same program, no base fact changed: nothing was read.
		if err := st.Close(); err != nil {
			return true, err
		}
		fmt.Fprintf(e.stdout, "+0 −0 ~0 derived facts in %s (nothing to update); stored in %s\n", wire.FormatDuration(time.Since(res.Start)), e.cli.DB)
		return true, nil
	}
	if res.Changed {
		noteCommitted()
	}
	if err := st.Close(); err != nil {
		return true, err
	}
	ch := res.Change
	fmt.Fprintf(e.stdout, "%s; stored in %s\n", wire.UpdateSummary(ch, res.Changed, time.Since(res.Start)), e.cli.DB)
	if e.showProgress() {
		fmt.Fprintln(e.stderr, wire.CatchupTimes(res, time.Now()))
	}
	wire.WriteChanges(e.stdout, ch, c.Changes)
	if th.Min > 0 {
		// An update does not count what the threshold cuts in the whole
		// program: say that it applies, and how to count.
		fmt.Fprintln(e.stderr, th.UpdateNote())
	}
	return true, nil
}
