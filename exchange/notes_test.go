package exchange

import (
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

// sniffTests are the formats Sniff names.
var sniffTests = []struct {
	src, want string
}{
	{"?a  wife  ?b   => ?b  husband  ?a\t0.5", "amie"},
	{"20\t15\t0.75\twife(X,Y) <= husband(Y,X)", "anyburl"},
	{"0.5 :: wife(X, Y) :- husband(Y, X).", "drumql"},
	{"a => b and c <= d", ""},
	{"nothing known", ""},
}

func TestSniff(t *testing.T) {
	for _, tt := range sniffTests {
		if got := Sniff([]byte(tt.src)); got != tt.want {
			t.Errorf("Sniff(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// hintTests are the hints for a file that failed to read as from.
var hintTests = []struct {
	from, src, want string
}{
	{"anyburl", "?a  wife  ?b   => ?b  husband  ?a\t0.5", "hint: this looks like AMIE's output: --from amie"},
	{"amie", "20\t15\t0.75\twife(X,Y) <= husband(Y,X)", "hint: this looks like AnyBURL's rules: --from anyburl"},
	{"anyburl", "0.5 :: wife(X, Y) :- husband(Y, X).", "hint: this looks like a Datalog file: --from drumql"},
	{"amie", "?a  wife  ?b   => ?b  husband  ?a\t0.5", ""},
	{"anyburl", "nothing known", ""},
}

func TestHint(t *testing.T) {
	for _, tt := range hintTests {
		if got := Hint(tt.from, []byte(tt.src)); got != tt.want {
			t.Errorf("Hint(%s, %q) = %q, want %q", tt.from, tt.src, got, tt.want)
		}
	}
}

// headerTests are the weights lines of Header for each way of reading.
var headerTests = []struct {
	format string
	opt    ReadOptions
	want   string
}{
	{"anyburl", ReadOptions{Smoothing: DefaultSmoothing}, "% weights: correct/(predicted + 5), to 4 significant digits"},
	{"anyburl", ReadOptions{Smoothing: 2}, "% weights: correct/(predicted + 2), to 4 significant digits"},
	{"anyburl", ReadOptions{}, "% weights: correct/predicted, to 4 significant digits"},
	{"anyburl", ReadOptions{Column: true}, "% weights: the confidence column as written"},
	{"amie", ReadOptions{Smoothing: DefaultSmoothing}, "% weights: Positive Examples/(PCA Body size + 5), to 4 significant digits"},
	{"amie", ReadOptions{Std: true}, "% weights: Positive Examples/Body size, to 4 significant digits"},
	{"amie", ReadOptions{Std: true, Column: true}, "% weights: Std Confidence as written"},
}

func TestHeader(t *testing.T) {
	rules := []datalog.Rule{{Head: datalog.Atom{Pred: "a"}}, {Head: datalog.Atom{Pred: "a"}}, {Head: datalog.Atom{Pred: "b"}}}
	for _, tt := range headerTests {
		h := Header(tt.format, "f.txt", rules, &Report{}, tt.opt)
		first, weights, _ := strings.Cut(h, "\n")
		if !strings.HasPrefix(first, "% drumql convert: 3 rules for 2 head relations from f.txt (") {
			t.Errorf("Header(%s, %+v) starts %q", tt.format, tt.opt, first)
		}
		if weights != tt.want {
			t.Errorf("Header(%s, %+v) weights line %q, want %q", tt.format, tt.opt, weights, tt.want)
		}
	}
	h := Header("anyburl", "f.txt", rules, &Report{ZeroBody: 3, PriorRelations: []string{"a", "b"}}, ReadOptions{})
	if !strings.HasSuffix(h, "\n% 3 zero-body rules: the slot prior ranks their 2 relations (prior = 1)") {
		t.Errorf("Header with zero-body rules ends %q", h)
	}
}

func TestWriteNotes(t *testing.T) {
	rep := WriteReport{MadeUp: 1, OtherWeight: 2}
	for _, tt := range []struct {
		s    int
		want string
	}{{DefaultSmoothing, "+ 5)"}, {0, "+ 0)"}, {3, "+ 3)"}} {
		notes := rep.Notes(WriteOptions{Smoothing: tt.s})
		if len(notes) != 2 || !strings.Contains(notes[0], tt.want) || !strings.Contains(notes[1], tt.want) {
			t.Errorf("Notes with smoothing %d = %q, want both with %q", tt.s, notes, tt.want)
		}
	}
}
