package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

func TestAggregateDirective(t *testing.T) {
	for _, tc := range []struct {
		src   string
		want  []datalog.Aggregate // positions ignored
		print string
		err   string
	}{
		{src: "@aggregate max.", want: []datalog.Aggregate{{Method: "max"}}, print: "@aggregate max.\n"},
		{src: "@aggregate noisy_or(top = 5, prior = 1).",
			want:  []datalog.Aggregate{{Method: "noisy_or", Params: []datalog.Param{{Name: "top", Value: 5}, {Name: "prior", Value: 1}}}},
			print: "@aggregate noisy_or(top = 5, prior = 1).\n"},
		{src: `@aggregate grouped(threshold = 0.70) for "/film/film/genre".`,
			want:  []datalog.Aggregate{{Method: "grouped", Params: []datalog.Param{{Name: "threshold", Value: 0.7}}, Pred: "/film/film/genre"}},
			print: "@aggregate grouped(threshold = 0.7) for \"/film/film/genre\".\n"},
		{src: "@aggregate max(). @aggregate max for wife.\nwife(X, Y) :- husband(Y, X).",
			want:  []datalog.Aggregate{{Method: "max"}, {Method: "max", Pred: "wife"}},
			print: "@aggregate max.\n@aggregate max for wife.\n\nwife(X, Y) :- husband(Y, X).\n"},
		{src: "@aggregate noisy_or(top 3).", err: `f.dl:1:25: error: unexpected "3"`},
		{src: "@aggregate.", err: `f.dl:1:11: error: unexpected "."`},
		{src: "@aggregate max for.", err: `f.dl:1:19: error: unexpected "."`},
	} {
		p, err := ParseString("f.dl", tc.src)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %s", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		got := stripPos(p).Aggregates
		if len(got) != len(tc.want) {
			t.Errorf("%q: %d directives, want %d", tc.src, len(got), len(tc.want))
			continue
		}
		for i := range got {
			if got[i].String() != tc.want[i].String() || got[i].Pred != tc.want[i].Pred {
				t.Errorf("%q: directive %d is %s, want %s", tc.src, i, got[i], tc.want[i])
			}
		}
		if s := p.String(); s != tc.print {
			t.Errorf("%q prints as\n%s\nwant\n%s", tc.src, s, tc.print)
		}
	}
}

// TestParseFileAggregates: ParseFile keeps the directives of the file and
// of the .dl files it imports, in the order read.
func TestParseFileAggregates(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("b.dl", "@aggregate max for w.\n")
	main := write("a.dl", "@aggregate noisy_or(top = 3).\n@import \"b.dl\".\nw(X, Y) :- h(Y, X).\n")
	p, err := ParseFile(main)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range p.Aggregates {
		got = append(got, a.String())
	}
	if want := []string{"@aggregate noisy_or(top = 3).", "@aggregate max for w."}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("directives %q, want %q", got, want)
	}
}
