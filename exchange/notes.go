package exchange

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/english"
)

// Sniff names the format src looks like: "amie" (it has AMIE's " => "
// arrows and no AnyBURL " <= "), "anyburl" (the reverse) or "drumql" (a
// Datalog ":-" and neither arrow); "" when it is none of them or both.
func Sniff(src []byte) string {
	amie := bytes.Contains(src, []byte("=>"))
	anyburl := bytes.Contains(src, []byte(" <= "))
	dl := bytes.Contains(src, []byte(":-"))
	switch {
	case amie && !anyburl:
		return "amie"
	case anyburl && !amie:
		return "anyburl"
	case dl && !amie && !anyburl:
		return "drumql"
	}
	return ""
}

// Hint says, for a file that failed to read as format from, which format
// it looks like instead (Sniff) and the --from that reads it, e.g. "hint:
// this looks like AMIE's output: --from amie"; "" when it looks like from
// or like none.
func Hint(from string, src []byte) string {
	switch guess := Sniff(src); {
	case guess == "" || guess == from:
		return ""
	case guess == "amie":
		return "hint: this looks like AMIE's output: --from amie"
	case guess == "anyburl":
		return "hint: this looks like AnyBURL's rules: --from anyburl"
	}
	return "hint: this looks like a Datalog file: --from drumql"
}

// Header is the comment that starts a Datalog file converted from file, in
// format ("anyburl" or "amie"), with opt: what the rules
// were converted from and how their weights were read. rules are the rules
// written, sorted by head relation; rep is the read's report.
func Header(format, file string, rules []datalog.Rule, rep *Report, opt ReadOptions) string {
	heads := 0
	for i, r := range rules {
		if i == 0 || r.Head.Pred != rules[i-1].Head.Pred {
			heads++
		}
	}
	name := map[string]string{"anyburl": "AnyBURL", "amie": "AMIE"}[format]
	h := fmt.Sprintf("%% drumql convert: %d rules for %d head relations from %s (%s)\n%% weights: ", len(rules), heads, file, name)
	conf, counts := "the confidence column", "correct/(predicted"
	if format == "amie" {
		conf, counts = "PCA Confidence", "Positive Examples/(PCA Body size"
		if opt.Std {
			conf, counts = "Std Confidence", "Positive Examples/(Body size"
		}
	}
	switch s := smoothing(opt.Smoothing); {
	case opt.Column:
		h += conf + " as written"
	case s == 0:
		h += strings.Replace(counts, "/(", "/", 1) + ", to 4 significant digits"
	default:
		h += fmt.Sprintf("%s + %d), to 4 significant digits", counts, s)
	}
	if n := len(rep.PriorRelations); n > 0 {
		h += fmt.Sprintf("\n%% %d zero-body rules: the slot prior ranks %s (prior = 1)", rep.ZeroBody, english.Plural(n, "their relation", fmt.Sprintf("their %d relations", n)))
	}
	return h
}

// Notes says, a sentence each, what the read left out or changed: the
// zero-body rules, the rules of weight 0 and the rules listed twice. It is
// empty when the read converted every rule as written.
func (r *Report) Notes() []string {
	var notes []string
	if r.ZeroBody > 0 {
		notes = append(notes, fmt.Sprintf("%d %s (r(X,c) <=) have no Datalog form: %s by the slot prior instead (prior = 1 in @aggregate, counted on the graph), not by their confidences",
			r.ZeroBody, english.Plural(r.ZeroBody, "zero-body rule", "zero-body rules"), english.Plural(len(r.PriorRelations), "their relation ranks", fmt.Sprintf("their %d relations rank", len(r.PriorRelations)))))
	}
	if r.NoWeight > 0 {
		notes = append(notes, fmt.Sprintf("%d %s with no correct prediction (weight 0) left out", r.NoWeight, english.Plural(r.NoWeight, "rule", "rules")))
	}
	if r.Duplicates > 0 {
		notes = append(notes, fmt.Sprintf("%d %s listed twice: the first kept", r.Duplicates, english.Plural(r.Duplicates, "rule", "rules")))
	}
	return notes
}

// Notes says, a sentence each, what writing with opt left out or changed:
// the rules skipped by reason (one line each after the first), the
// comparisons dropped, and the rules whose counts were made up or give
// another weight. It is empty when every rule was written as it was.
func (r *WriteReport) Notes(opt WriteOptions) []string {
	var notes []string
	if n := r.SkippedRules(); n > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%d %s AnyBURL cannot express skipped:", n, english.Plural(n, "rule", "rules"))
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "\n  %d with %s, the first at %s", s.Count, s.Reason, s.First)
		}
		notes = append(notes, b.String())
	}
	if r.Comparisons > 0 {
		notes = append(notes, fmt.Sprintf("%d %s dropped: AnyBURL reads every rule under object identity (its variables and constants name different entities)",
			r.Comparisons, english.Plural(r.Comparisons, "!= comparison", "!= comparisons")))
	}
	s := smoothing(opt.Smoothing)
	if r.MadeUp > 0 {
		notes = append(notes, fmt.Sprintf("%d %s no counts in their comment (support=N body=M): written with counts whose correct/(predicted + %d) is their weight, and the weight as the confidence",
			r.MadeUp, english.Plural(r.MadeUp, "rule has", "rules have"), s))
	}
	if r.OtherWeight > 0 {
		notes = append(notes, fmt.Sprintf("%d %s counts whose correct/(predicted + %d) is not their weight (edited, or not a confidence): the counts were written, and tools that read AnyBURL's format weight the rules by them",
			r.OtherWeight, english.Plural(r.OtherWeight, "rule has", "rules have"), s))
	}
	return notes
}

// NotWritten lists what of prog besides its rules AnyBURL's format has no
// place for: its facts, queries, imports, @aggregate directives and @min,
// comma-separated; "" when prog has none of them.
func NotWritten(prog *datalog.Program) string {
	var not []string
	if n := len(prog.Facts); n > 0 {
		not = append(not, fmt.Sprintf("%d %s", n, english.Plural(n, "fact", "facts")))
	}
	if n := len(prog.Queries); n > 0 {
		not = append(not, fmt.Sprintf("%d %s", n, english.Plural(n, "query", "queries")))
	}
	if n := len(prog.Imports); n > 0 {
		not = append(not, fmt.Sprintf("%d %s", n, english.Plural(n, "@import (not followed)", "@imports (not followed)")))
	}
	if n := len(prog.Aggregates); n > 0 {
		d := fmt.Sprintf("%d %s", n, english.Plural(n, "@aggregate directive", "@aggregate directives")) + " (the tool that applies the rules aggregates them its own way"
		for _, a := range prog.Aggregates {
			if a.Value("prior") == 1 {
				d += "; the slot prior, prior = 1, would need AnyBURL's zero-body rules counted on the graph"
				break
			}
		}
		not = append(not, d+")")
	}
	if len(prog.Thresholds) > 0 {
		not = append(not, "@min")
	}
	if n := len(prog.RuleGroups); n > 0 {
		not = append(not, fmt.Sprintf("%d %s", n, english.Plural(n, "@groups directive", "@groups directives")))
	}
	return strings.Join(not, ", ")
}
