package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// update brings the stored derived facts up to date with prog and the base
// facts loaded or retracted since the last infer, through the reasoner's
// incremental maintenance. It reports false when infer must recompute
// instead: no derived facts with a record (the first infer), too many base
// changes, or a record that does not match the stored facts (a note on
// stderr says which, except for the first).
func (c *inferCmd) update(e *env, st store.Store, prog *datalog.Program, opt reasoner.Options, th threshold, pb *bar) (bool, error) {
	ms, err := st.Materialised()
	if err != nil {
		return true, err
	}
	if ms.Program == nil {
		return false, nil
	}
	recompute := func(why string) (bool, error) {
		fmt.Fprintf(e.stderr, "note: %s: recomputing every derived fact\n", why)
		return false, nil
	}
	if ms.Overflow {
		return recompute(fmt.Sprintf("more than %d base facts changed since the last infer", store.MaxChangeLog))
	}
	start := time.Now()
	if len(ms.Changes) == 0 && bytes.Equal(reasoner.RecordOf(prog, opt), ms.Program) {
		// The same program, no base fact changed: nothing to read.
		if err := st.Close(); err != nil {
			return true, err
		}
		fmt.Fprintf(e.stdout, "+0 −0 ~0 derived facts in %s (nothing to update); stored in %s\n", formatDuration(time.Since(start)), e.cli.DB)
		return true, nil
	}
	old, min, err := reasoner.DecodeRecord(ms.Program, func(src string) (*datalog.Program, error) {
		return parser.ParseString("record", src)
	})
	if err != nil {
		return recompute(fmt.Sprintf("the store's record of the last infer cannot be read (%v)", err))
	}
	changes := make([]reasoner.FactChange, len(ms.Changes))
	for i, ch := range ms.Changes {
		changes[i] = reasoner.FactChange{Fact: ch.Fact, Added: ch.Added}
	}
	pb.describe("reading the stored derived facts")
	m, err := reasoner.Resume(e.ctx, st, old, min, changes, opt)
	switch {
	case errors.Is(err, reasoner.ErrStaleRecord), errors.Is(err, reasoner.ErrInvalidProgram):
		return recompute(fmt.Sprintf("the stored derived facts cannot be updated (%v)", err))
	case err != nil:
		return true, err
	}
	resumed := time.Now()
	pb.describe("updating")
	ch, err := m.Apply(e.ctx, reasoner.Delta{Base: changes, Program: prog})
	if err != nil {
		return true, err
	}
	applied := time.Now()
	changed := ch.Full || ch.Added+ch.Removed+ch.Reweighted+ch.Proofs > 0 || len(changes) > 0 ||
		!bytes.Equal(m.Record(), ms.Program)
	if changed {
		pb.describe("storing the changes")
		if err := m.WriteUpdate(e.ctx, ch); err != nil {
			return true, err
		}
		noteCommitted()
	}
	if err := st.Close(); err != nil {
		return true, err
	}
	how := fmt.Sprintf("incremental, %d rounds", ch.Rounds)
	if ch.Full {
		how = "recomputed, cheaper than an update"
	}
	if !changed {
		how = "nothing to update"
	}
	fmt.Fprintf(e.stdout, "%s derived facts in %s (%s); stored in %s\n", changeCounts(ch),
		formatDuration(time.Since(start)), how, e.cli.DB)
	if e.showProgress() {
		fmt.Fprintf(e.stderr, "read the stored derived facts in %s, updated in %s, stored in %s\n",
			formatDuration(resumed.Sub(start)), formatDuration(applied.Sub(resumed)), formatDuration(time.Since(applied)))
	}
	writeChanges(e.stdout, ch, c.Changes)
	if th.min > 0 {
		// An update does not count what the threshold cuts in the whole
		// program: say that it applies, and how to count.
		fmt.Fprintf(e.stderr, "drumql: note: the threshold %s (%s) applies: derived facts below it are not stored; infer --full counts the derivations it cuts\n",
			fmtMin(th.min), th.source)
	}
	return true, nil
}

// changeCounts is "+N −M ~K": derived facts added, removed, re-weighted.
func changeCounts(ch reasoner.Change) string {
	return fmt.Sprintf("+%d −%d ~%d", ch.Added, ch.Removed, ch.Reweighted)
}

// formatDuration rounds d for a person: milliseconds below 10 s.
func formatDuration(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return d.Round(100 * time.Millisecond).String()
}

// writeChanges lists up to n of the changed facts: "+ fact  conf",
// "− fact  conf", "~ fact  old → new".
func writeChanges(w io.Writer, ch reasoner.Change, n int) {
	for i, f := range ch.Facts {
		if i == n {
			if more := ch.Added + ch.Removed + ch.Reweighted - n; more > 0 {
				fmt.Fprintf(w, "  ... and %d more\n", more)
			}
			return
		}
		atom := factText(f.Pred, f.Args)
		switch {
		case f.Old == 0:
			fmt.Fprintf(w, "  + %s  %s\n", atom, formatConf(f.New))
		case f.New == 0:
			fmt.Fprintf(w, "  − %s  %s\n", atom, formatConf(f.Old))
		default:
			fmt.Fprintf(w, "  ~ %s  %s → %s\n", atom, formatConf(f.Old), formatConf(f.New))
		}
	}
}

// factText writes a fact as a program would.
func factText(pred string, args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = datalog.QuoteName(a)
	}
	return datalog.QuoteName(pred) + "(" + strings.Join(q, ", ") + ")"
}

// formatConf writes a confidence with four significant digits.
func formatConf(c float64) string { return fmt.Sprintf("%.4g", c) }
