package policy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/english"
	"github.com/drumql/drumql/reasoner"
)

// What a threshold cut is said, never dropped silently: the wording the
// commands that evaluate (query, explain, infer) print on stderr, with the
// counts of an evaluation's [reasoner.EvalStats].

// FormatMin formats a threshold as it is written in a program or on the
// command line (0.1, 1e-09).
func FormatMin(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// ThresholdConflict returns, when prog's files set different thresholds,
// the warning that names each file's @min and the one used (the smallest,
// as [ResolveMin] resolves it), e.g. "a.dl sets @min 0.1 and b.dl @min
// 0.01: using 0.01 (the smallest; --min overrides)"; "" when they agree or
// fewer than two files set one. A file without @min makes no claim and is
// not named.
func ThresholdConflict(prog *datalog.Program) string {
	if prog == nil || len(prog.Thresholds) < 2 {
		return ""
	}
	differ := false
	for _, t := range prog.Thresholds[1:] {
		differ = differ || t.Min != prog.Thresholds[0].Min
	}
	if !differ {
		return ""
	}
	m, _ := prog.Threshold()
	parts := make([]string, len(prog.Thresholds))
	for i, t := range prog.Thresholds {
		parts[i] = fmt.Sprintf("%s @min %s", t.Pos.File, FormatMin(t.Min))
	}
	parts[0] = strings.Replace(parts[0], " @min ", " sets @min ", 1)
	list := strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	return fmt.Sprintf("%s: using %s (the smallest; --min overrides)", list, FormatMin(m))
}

// CutText says what the threshold did in an evaluation, e.g. "cut 12,345
// derivations and left out 321 weaker rules"; "" when it did nothing.
func CutText(st reasoner.EvalStats) string {
	var parts []string
	if st.Cut > 0 {
		parts = append(parts, "cut "+count(st.Cut, "derivation", "derivations"))
	}
	if st.WeakRules > 0 {
		parts = append(parts, "left out "+count(int64(st.WeakRules), "weaker rule", "weaker rules"))
	}
	return strings.Join(parts, " and ")
}

// BringBack says how to see what the threshold t removed: a lower --min
// when t came from --min or is already tiny, else --min 1e-9.
func (t Threshold) BringBack() string {
	if t.Source == "--min" || t.Min <= 1e-9 {
		return "a lower --min brings them back"
	}
	return "--min 1e-9 (or a lower @min) brings them back"
}

// Note is the note on an evaluation at threshold t with the statistics st
// when the threshold removed anything (st.Cut or st.WeakRules), "" when it
// did not: what names what was left out ("answers", "derived facts"), verb
// what happened to it ("are not shown"). After an exact evaluation (no
// threshold), only confidences that underflow are dropped, and the note
// says so.
func (t Threshold) Note(st reasoner.EvalStats, what, verb string) string {
	did := CutText(st)
	if did == "" {
		return ""
	}
	if t.Min <= 0 || st.Min <= reasoner.Exact {
		return fmt.Sprintf("drumql: note: %s fell below %g, the smallest confidence a float64 holds, and were dropped",
			count(st.Cut, "derivation", "derivations"), reasoner.Exact)
	}
	return fmt.Sprintf("drumql: note: the threshold %s (%s) %s: %s below %s %s; %s",
		FormatMin(st.Min), t.Source, did, what, FormatMin(st.Min), verb, t.BringBack())
}

// count formats n with its noun, with thousands separators: "1 rule",
// "12,345 derivations".
func count(n int64, one, many string) string {
	return english.Thousands(n) + " " + english.Plural(n, one, many)
}

// StoredNote says that a query's answers are the derived facts infer
// stored for the program, at the threshold t: with one, that derivations
// below it were not stored, and how to see them.
func (t Threshold) StoredNote() string {
	if t.Min > reasoner.Exact {
		return fmt.Sprintf("drumql: note: answered from the derived facts infer stored for these rules, at the threshold %s (%s): derivations below it were not stored; %s",
			FormatMin(t.Min), t.Source, t.BringBack())
	}
	return "drumql: note: answered from the derived facts infer stored for these rules"
}

// DecidedNote is the note, in place of [Threshold.Note], on a query whose
// top best answers (the best one when top <= 1) needed only the
// derivations of confidence decided or more ([Result.Decided]): the weaker
// ones were not evaluated.
func DecidedNote(top int, decided float64) string {
	what := "best answer"
	if top > 1 {
		what = fmt.Sprintf("%d best answers", top)
	}
	return fmt.Sprintf("drumql: note: the %s needed only the derivations of confidence %s or more; the weaker ones were not evaluated (--top 0 evaluates every answer)",
		what, FormatMin(decided))
}

// UpdateNote is the note on an incremental update of the derived facts at
// the threshold t (t.Min > 0): it applies, and since an update does not
// count what it cuts in the whole program, how to count.
func (t Threshold) UpdateNote() string {
	return fmt.Sprintf("drumql: note: the threshold %s (%s) applies: derived facts below it are not stored; infer --full counts the derivations it cuts",
		FormatMin(t.Min), t.Source)
}

// ProofNote is the note under the best proof of a fact of pred when prog
// (nil: none) ranks pred's facts by another aggregation than max
// (@aggregate): the proof is the best single derivation, not what ranks
// the fact. It is "" under max.
func ProofNote(prog *datalog.Program, pred string) string {
	if prog == nil {
		return ""
	}
	a := prog.Aggregation(pred)
	if a.Method == "max" {
		return ""
	}
	return fmt.Sprintf("note: the rule files rank %s facts by %s over several rules' derivations; this is the best single derivation",
		datalog.QuoteName(pred), a.Describe())
}
