package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/english"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
)

// The threshold of an evaluation (the smallest confidence it keeps) belongs
// to the program: a mined file says `@min 0.1.` (drumql mine writes it), a
// hand-written program has none and is evaluated exactly. --min, when
// given, overrides the program's. Whatever the threshold cut is said on
// stderr (thresholdNote): no answer disappears silently. drumql mine
// writes @min 0.1 (--threshold): a mined file has hundreds of rules per head
// relation, and chaining their weak derivations through each other would
// derive far more than the graph (docs/BENCHMARKS.md: 489,941 facts at
// 1e-4 for a 2,426-rule quick-start file, against about 8,000 at 0.1).

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

// threshold is the threshold an evaluation applies and where it comes from.
type threshold struct {
	min    float64 // 0: none, an exact evaluation
	source string  // "--min", "@min in FILE", or "" (exact)
}

// resolveMin returns the threshold of an evaluation of prog (nil: none)
// with --min flag (0: not given), as the query policy resolves it
// (policy.ResolveMin): the commands pass the resolved value so that every
// evaluation of one command (a query and its rescoring) applies the same
// threshold, and to name its source.
func resolveMin(flag float64, prog *datalog.Program) threshold {
	t := policy.ResolveMin(flag, prog)
	return threshold{min: t.Min, source: t.Source}
}

// warnThresholds prints one warning on w when prog's files set different
// thresholds: the smallest is used (datalog.Program.Threshold). The caller
// does not call it when --min is given. A file without @min makes no claim
// and is not named.
func warnThresholds(w io.Writer, prog *datalog.Program) {
	if prog == nil || len(prog.Thresholds) < 2 {
		return
	}
	differ := false
	for _, t := range prog.Thresholds[1:] {
		differ = differ || t.Min != prog.Thresholds[0].Min
	}
	if !differ {
		return
	}
	m, _ := prog.Threshold()
	parts := make([]string, len(prog.Thresholds))
	for i, t := range prog.Thresholds {
		parts[i] = fmt.Sprintf("%s @min %s", t.Pos.File, fmtMin(t.Min))
	}
	parts[0] = strings.Replace(parts[0], " @min ", " sets @min ", 1)
	list := strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	fmt.Fprintf(w, "drumql: warning: %s: using %s (the smallest; --min overrides)\n", list, fmtMin(m))
}

// fmtMin formats a threshold as it is written (0.1, 1e-09).
func fmtMin(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// cutText says what the threshold did, e.g. "cut 12,345 derivations and
// left out 321 weaker rules"; "" when it did nothing.
func cutText(st reasoner.EvalStats) string {
	var parts []string
	if st.Cut > 0 {
		parts = append(parts, "cut "+count(st.Cut, "derivation", "derivations"))
	}
	if st.WeakRules > 0 {
		parts = append(parts, "left out "+count(int64(st.WeakRules), "weaker rule", "weaker rules"))
	}
	return strings.Join(parts, " and ")
}

// bringBack says how to see what the threshold th removed.
func bringBack(th threshold) string {
	if th.source == "--min" || th.min <= 1e-9 {
		return "a lower --min brings them back"
	}
	return "--min 1e-9 (or a lower @min) brings them back"
}

// thresholdNote prints, when the evaluation's threshold removed anything
// (st.Cut or st.WeakRules), one note on w that says so with the counts:
// what is what was left out ("answers", "derived facts"), verb what
// happened to it ("are not shown"). It prints even with --quiet, which
// silences progress: the note is about the result.
func thresholdNote(w io.Writer, st reasoner.EvalStats, th threshold, what, verb string) {
	did := cutText(st)
	if did == "" {
		return
	}
	if th.min <= 0 || st.Min <= reasoner.Exact {
		// An exact evaluation drops only confidences that underflow.
		fmt.Fprintf(w, "drumql: note: %s fell below %g, the smallest confidence a float64 holds, and were dropped\n",
			count(st.Cut, "derivation", "derivations"), reasoner.Exact)
		return
	}
	fmt.Fprintf(w, "drumql: note: the threshold %s (%s) %s: %s below %s %s; %s\n",
		fmtMin(st.Min), th.source, did, what, fmtMin(st.Min), verb, bringBack(th))
}

// count formats n with its noun, with thousands separators: "1 rule",
// "12,345 derivations".
func count(n int64, one, many string) string {
	return english.Thousands(n) + " " + english.Plural(n, one, many)
}
