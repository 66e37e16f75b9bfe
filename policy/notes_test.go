package policy_test

import (
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/policy"
	"github.com/drumql/drumql/reasoner"
)

// conflictCases are programs' @min directives (file, min) and the warning
// ThresholdConflict gives for them.
var conflictCases = []struct {
	mins []datalog.Threshold
	want string
}{
	{nil, ""},
	{[]datalog.Threshold{{Min: 0.1, Pos: datalog.Pos{File: "a.dl"}}}, ""},
	{[]datalog.Threshold{{Min: 0.1, Pos: datalog.Pos{File: "a.dl"}}, {Min: 0.1, Pos: datalog.Pos{File: "b.dl"}}}, ""},
	{[]datalog.Threshold{{Min: 0.1, Pos: datalog.Pos{File: "a.dl"}}, {Min: 0.01, Pos: datalog.Pos{File: "b.dl"}}},
		"a.dl sets @min 0.1 and b.dl @min 0.01: using 0.01 (the smallest; --min overrides)"},
	{[]datalog.Threshold{{Min: 0.1, Pos: datalog.Pos{File: "a.dl"}}, {Min: 0.1, Pos: datalog.Pos{File: "b.dl"}}, {Min: 1e-9, Pos: datalog.Pos{File: "c.dl"}}},
		"a.dl sets @min 0.1, b.dl @min 0.1 and c.dl @min 1e-09: using 1e-09 (the smallest; --min overrides)"},
}

func TestThresholdConflict(t *testing.T) {
	if got := policy.ThresholdConflict(nil); got != "" {
		t.Errorf("nil program: %q", got)
	}
	for _, c := range conflictCases {
		if got := policy.ThresholdConflict(&datalog.Program{Thresholds: c.mins}); got != c.want {
			t.Errorf("%v: %q, want %q", c.mins, got, c.want)
		}
	}
}

// noteCases are thresholds, what an evaluation at them cut, and the note
// (and CutText) said about it.
var noteCases = []struct {
	th        policy.Threshold
	st        reasoner.EvalStats
	cut, note string
}{
	{policy.Threshold{Min: 0.1, Source: "--min"}, reasoner.EvalStats{Min: 0.1}, "", ""},
	{policy.Threshold{Min: 0.1, Source: "--min"}, reasoner.EvalStats{Min: 0.1, Cut: 1},
		"cut 1 derivation", "drumql: note: the threshold 0.1 (--min) cut 1 derivation: answers below 0.1 are not shown; a lower --min brings them back"},
	{policy.Threshold{Min: 0.1, Source: "@min in a.dl"}, reasoner.EvalStats{Min: 0.1, Cut: 12345, WeakRules: 1},
		"cut 12,345 derivations and left out 1 weaker rule",
		"drumql: note: the threshold 0.1 (@min in a.dl) cut 12,345 derivations and left out 1 weaker rule: answers below 0.1 are not shown; --min 1e-9 (or a lower @min) brings them back"},
	{policy.Threshold{Min: 1e-9, Source: "@min in a.dl"}, reasoner.EvalStats{Min: 1e-9, WeakRules: 2},
		"left out 2 weaker rules", "drumql: note: the threshold 1e-09 (@min in a.dl) left out 2 weaker rules: answers below 1e-09 are not shown; a lower --min brings them back"},
	{policy.Threshold{}, reasoner.EvalStats{Min: reasoner.Exact, Cut: 3},
		"cut 3 derivations", "drumql: note: 3 derivations fell below 5e-324, the smallest confidence a float64 holds, and were dropped"},
	{policy.Threshold{}, reasoner.EvalStats{Min: 0.5, Cut: 2},
		"cut 2 derivations", "drumql: note: 2 derivations fell below 5e-324, the smallest confidence a float64 holds, and were dropped"},
}

func TestThresholdNote(t *testing.T) {
	for _, c := range noteCases {
		if got := policy.CutText(c.st); got != c.cut {
			t.Errorf("CutText(%+v) = %q, want %q", c.st, got, c.cut)
		}
		if got := c.th.Note(c.st, "answers", "are not shown"); got != c.note {
			t.Errorf("%+v.Note(%+v):\n %q\nwant %q", c.th, c.st, got, c.note)
		}
	}
	if got := policy.FormatMin(0.1); got != "0.1" {
		t.Errorf("FormatMin(0.1) = %q", got)
	}
}

func TestStoredDecidedUpdateNotes(t *testing.T) {
	mined := policy.Threshold{Min: 0.1, Source: "@min in a.dl"}
	for _, c := range []struct{ got, want string }{
		{mined.StoredNote(), "drumql: note: answered from the derived facts infer stored for these rules, at the threshold 0.1 (@min in a.dl): derivations below it were not stored; --min 1e-9 (or a lower @min) brings them back"},
		{policy.Threshold{}.StoredNote(), "drumql: note: answered from the derived facts infer stored for these rules"},
		{policy.Threshold{Min: reasoner.Exact, Source: "--min"}.StoredNote(), "drumql: note: answered from the derived facts infer stored for these rules"},
		{policy.DecidedNote(1, 0.25), "drumql: note: the best answer needed only the derivations of confidence 0.25 or more; the weaker ones were not evaluated (--top 0 evaluates every answer)"},
		{policy.DecidedNote(0, 0.25), "drumql: note: the best answer needed only the derivations of confidence 0.25 or more; the weaker ones were not evaluated (--top 0 evaluates every answer)"},
		{policy.DecidedNote(5, 0.5), "drumql: note: the 5 best answers needed only the derivations of confidence 0.5 or more; the weaker ones were not evaluated (--top 0 evaluates every answer)"},
		{mined.UpdateNote(), "drumql: note: the threshold 0.1 (@min in a.dl) applies: derived facts below it are not stored; infer --full counts the derivations it cuts"},
	} {
		if c.got != c.want {
			t.Errorf("\n got %q\nwant %q", c.got, c.want)
		}
	}
}

func TestProofNote(t *testing.T) {
	for _, c := range []struct{ src, pred, want string }{
		{"", "wife", ""},
		{"@aggregate max.", "wife", ""},
		{"@aggregate noisy_or(top = 3).", "wife", "note: the rule files rank wife facts by noisy_or(top = 3) over several rules' derivations; this is the best single derivation"},
		{"@aggregate noisy_or for wife.", "husband", ""},
		{"@aggregate grouped for \"has part\".", "has part", "note: the rule files rank \"has part\" facts by grouped over several rules' derivations; this is the best single derivation"},
	} {
		if got := policy.ProofNote(mustParse(t, "a.dl", c.src), c.pred); got != c.want {
			t.Errorf("%q, %s:\n %q\nwant %q", c.src, c.pred, got, c.want)
		}
	}
	if got := policy.ProofNote(nil, "wife"); got != "" {
		t.Errorf("no program: %q", got)
	}
}
