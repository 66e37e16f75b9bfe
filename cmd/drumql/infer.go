package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/reasoner/maintain"
	"github.com/drumql/drumql/remote"
	"github.com/drumql/drumql/rulefile"
	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/wire"
)

// inferCmd is drumql infer.
type inferCmd struct {
	Files     []string `arg:"" name:"rules" help:"Datalog rule files (.dl); mined files are merged into the others."`
	Min       *float64 `placeholder:"X" help:"Drop derivations whose confidence is below X, in (0, 1], overriding the files' threshold. Default: the threshold the rule files set (@min, which drumql mine writes: 0.1; the smallest when files differ), and an exact evaluation, every derivation kept, when none does. A note on stderr says how many derivations the threshold cut."`
	MaxFacts  int      `default:"50000000" placeholder:"N" help:"Stop with an error beyond N derived facts (N > 0)."`
	Threads   int      `placeholder:"N" help:"Worker goroutines (default 0: all cores)."`
	Trace     bool     `help:"Write a line on stderr about once a second while deriving, whether or not stderr is a terminal: the round, facts derived, joins, memory in use, elapsed time."`
	MaxMemory string   `placeholder:"SIZE" help:"Stop with an error, leaving the store unchanged, when the process holds more than SIZE of memory (e.g. 8G; the Go runtime's and the resident pages of the store's mapped files, as peak RSS counts them; checked as the fixpoint grows and as its result is stored; default: the available memory, the smaller of MemAvailable and the cgroup limit; off: no cap)."` // a size ("8G"), "off", or "" for the available memory
	Full      bool     `help:"Recompute every derived fact from scratch instead of updating the stored ones with what changed since the last infer (rules, weights, threshold, base facts)."`
	Changes   int      `default:"10" placeholder:"N" help:"After an update, list the first N derived facts it added, removed or re-weighted (0: none)."`
	NoImage   bool     `help:"Neither read nor write the materialisation image (a file in the store's directory that an update reads instead of the stored derived facts, which every infer writes)."`
}

// memoryCap resolves the value of a --max-memory flag: a size, "off", or
// "" for the available memory.
func memoryCap(flag string) (sysmem.Limit, error) {
	lim, _, err := sysmem.ParseCap(flag, "--max-memory")
	if err != nil {
		return sysmem.Limit{}, inputErr(fmt.Errorf("--max-memory %s: %w", flag, err))
	}
	if flag != "off" && flag != "" && lim.Bytes <= 0 {
		return sysmem.Limit{}, inputErr(fmt.Errorf("--max-memory %s: must be more than 0 (or off)", flag))
	}
	return lim, nil
}

// checkCount rejects a negative value of a count flag.
func checkCount(flag string, n int) error {
	if n < 0 {
		return inputErr(fmt.Errorf("--%s %d: must be 0 or more", flag, n))
	}
	return nil
}

// programErr is the error of an invalid program found by the reasoner: its
// diagnostics with source lines and carets, an input error.
func programErr(err error) error {
	var ds datalog.Diagnostics
	if errors.As(err, &ds) {
		return inputErr(rulefile.DiagnosticsError{Diagnostics: ds})
	}
	return inputErr(err)
}

// Help is shown under the command's usage.
func (inferCmd) Help() string {
	return `Forward chaining: derives every fact the rules imply from the base facts, with a
confidence (rule weight times the body confidences along a derivation, the best
derivation kept) and its best proof, and stores them in the derived space. A new
infer replaces the previous derived facts atomically; base facts are never
touched, and a failed or interrupted infer leaves the previous derived state.

The fixpoint, and the write of its result, stop with an error, the store
unchanged, when the process holds more memory than --max-memory (by default
the available memory): the Go runtime's and the resident pages of the store's
mapped files, as peak RSS counts them. On a terminal, a progress line shows
the rounds, the facts derived, the memory in use and the time, then the write.

A second infer updates what the first stored instead of recomputing it: the
store keeps the program its derived facts are of and the base facts loaded or
retracted since, and only what the difference reaches is derived again (rules
added, removed or re-weighted, facts, the threshold raised, base facts). It says
what changed: "+N -M ~K derived facts" (added, removed, re-weighted) and the
time, and lists the first changed facts (--changes). It recomputes from scratch
when that is cheaper (most of the rules or facts gone) or needed (a lowered
threshold, more than a million base facts changed), saying so; --full always
does.

The threshold belongs to the program: derivations whose confidence is below
the rule files' @min directive (drumql mine writes @min 0.1; merged files with
different ones use the smallest, and a file without one makes no claim) are
dropped, and a program without any is evaluated exactly. --min X overrides it.
When the threshold cut derivations or left weaker rules out, a note on stderr
says how many (also with --quiet).

Examples:
  drumql infer families.dl examples/families/expert.dl
  drumql infer --full families.dl examples/families/expert.dl
  drumql infer --min 0.01 rules.dl
  drumql infer --max-memory 4G rules.dl`
}

func (c *inferCmd) Run(e *env) error {
	minX, err := minFlag(c.Min)
	if err := errors.Join(err, checkCount("threads", c.Threads), checkCount("changes", c.Changes)); err != nil {
		return err
	}
	if c.MaxFacts <= 0 {
		return inputErr(fmt.Errorf("--max-facts %d: must be more than 0", c.MaxFacts))
	}
	lim, err := memoryCap(c.MaxMemory)
	if err != nil {
		return err
	}
	ps, th, st, err := programAndStore(e, c.Files, minX, true)
	if err != nil || st == nil {
		return err
	}
	defer st.Close()
	defer lim.Soften()() // the collector works harder near the cap: it stops live data, not garbage
	defer sysmem.CollectOften(sysmem.InferGC)()
	pb := e.newBar(-1, "inferring")
	opt := reasoner.Options{Min: th.Min, MaxFacts: c.MaxFacts, Threads: c.Threads, MaxMemory: lim.Bytes,
		Progress: func(p reasoner.Progress) {
			pb.describe(wire.ProgressText(p))
			if c.Trace && p.Phase == reasoner.PhaseDerive {
				fmt.Fprintln(e.stderr, wire.TraceLine(p))
			}
		}}
	if !c.Full {
		done, err := c.update(e, st, ps.Prog, opt, th, pb)
		if done || err != nil {
			pb.finish()
			if err != nil {
				return c.inferErr(e, err, lim)
			}
			return nil
		}
	}
	stats, err := maintain.Infer(e.ctx, st, ps.Prog, opt, maintain.InferOptions{NoImage: c.NoImage, Notes: e.stderr})
	pb.finish()
	if err != nil {
		return c.inferErr(e, err, lim)
	}
	noteCommitted()
	if err := st.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "derived %d facts in %d strata, %d rounds; stored in %s\n",
		stats.Facts, stats.Strata, stats.Iterations, e.cli.DB)
	if e.showProgress() {
		fmt.Fprintf(e.stderr, "infer took %s\n", stats.Duration.Round(time.Millisecond))
	}
	wire.WriteDerived(e.stdout, stats.Derived)
	thresholdNote(e.stderr, stats.Eval, th, "derived facts", "are not stored")
	return nil
}

// programAndStore loads the rule files (warnings on stderr), resolves the
// threshold with --min minX, opens the store for writing (nil when, beside,
// a server holding it answered: remote.Infer) and warns of unknown bodies.
func programAndStore(e *env, files []string, minX float64, beside bool) (*rulefile.Set, policy.Threshold, store.Store, error) {
	var warn bytes.Buffer
	ps, err := loadPrograms(e, &warn, files)
	io.Copy(e.stderr, &warn)
	if err != nil {
		return nil, policy.Threshold{}, nil, err
	}
	th := policy.ResolveMin(minX, ps.Prog)
	if minX == 0 {
		warnThresholds(e.stderr, ps.Prog)
	}
	if beside {
		if ok, err := remote.Infer(e.ctx, e.cli.DB, ps.Prog, th.Min, e.stdout); ok {
			return ps, th, nil, err
		}
	}
	st, err := e.openStoreForWriting(true)
	if err != nil {
		return nil, policy.Threshold{}, nil, err
	}
	warnUnknownBody(e.stderr, st, ps.Prog)
	return ps, th, st, nil
}

// inferErr is the message of a failed infer or update: the store is
// unchanged.
func (c *inferCmd) inferErr(e *env, err error, lim sysmem.Limit) error {
	if e.ctx.Err() != nil {
		return fmt.Errorf("infer interrupted: the store is unchanged (previous derived facts kept)")
	}
	if errors.Is(err, reasoner.ErrInvalidProgram) {
		return programErr(err)
	}
	if m, ok := errors.AsType[*reasoner.MemoryLimitError](err); ok && m.Writing {
		return fmt.Errorf("infer: storing the %d facts derived held %s of memory, more than the %s (%s); raise --min, use fewer rules, or pass --max-memory SIZE (or --max-memory off)\nthe store is unchanged (previous derived facts kept)",
			m.Facts, sysmem.Format(m.InUse), lim.Source, sysmem.Format(lim.Bytes))
	} else if ok {
		return fmt.Errorf("infer: the evaluation needed %s of memory in round %d with %d facts derived, more than the %s (%s); raise --min, use fewer rules, or pass --max-memory SIZE (or --max-memory off)\nthe store is unchanged (previous derived facts kept)",
			sysmem.Format(m.InUse), m.Rounds, m.Facts, lim.Source, sysmem.Format(lim.Bytes))
	}
	if errors.Is(err, reasoner.ErrTooManyFacts) {
		return fmt.Errorf("%w (--max-facts)\nthe store is unchanged (previous derived facts kept)", err)
	}
	// the reasoner's error names the operation (reasoner: infer: ...)
	return fmt.Errorf("%w\nthe store is unchanged (previous derived facts kept)", err)
}

// warnUnknownBody warns about body predicates that are neither relations of
// the store nor defined by the program (rulefile.UnknownBody).
func warnUnknownBody(w io.Writer, st store.Store, p *datalog.Program) {
	rels, _ := store.RelationNames(st) // none when they cannot be read
	rulefile.WriteWarnings(w, rulefile.UnknownBody(rels, p))
}
