package main

import (
	"fmt"
	"io"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
)

// The threshold of an evaluation (the smallest confidence it keeps) belongs
// to the program: a mined file says `@min 0.1.` (drumql mine writes it), a
// hand-written program has none and is evaluated exactly. --min, when
// given, overrides the program's. Whatever the threshold cut is said on
// stderr (thresholdNote, policy.Threshold.Note): no answer disappears
// silently. drumql mine writes @min 0.1 (--threshold): a mined file has
// hundreds of rules per head relation, and chaining their weak derivations
// through each other would derive far more than the graph
// (docs/BENCHMARKS.md: 489,941 facts at 1e-4 for a 2,426-rule quick-start
// file, against about 8,000 at 0.1).

// minFlag checks --min: nil (not given) is 0, which lets the reasoner use
// the program's threshold; a given value must be in (0, 1].
func minFlag(p *float64) (float64, error) {
	if p == nil {
		return 0, nil
	}
	return *p, checkMin(*p)
}

// checkMin rejects a --min outside (0, 1].
func checkMin(x float64) error {
	if !(x > 0 && x <= 1) {
		return inputErr(fmt.Errorf("--min %g: a confidence threshold must be in (0, 1]", x))
	}
	return nil
}

// warnThresholds prints one warning on w when prog's files set different
// thresholds (policy.ThresholdConflict): the smallest is used. The caller
// does not call it when --min is given.
func warnThresholds(w io.Writer, prog *datalog.Program) {
	if msg := policy.ThresholdConflict(prog); msg != "" {
		fmt.Fprintf(w, "drumql: warning: %s\n", msg)
	}
}

// thresholdNote prints, when the evaluation's threshold removed anything,
// one note on w that says so with the counts (policy.Threshold.Note). It
// prints even with --quiet, which silences progress: the note is about the
// result.
func thresholdNote(w io.Writer, st reasoner.EvalStats, th policy.Threshold, what, verb string) {
	if note := th.Note(st, what, verb); note != "" {
		fmt.Fprintln(w, note)
	}
}
