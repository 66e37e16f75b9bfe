package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

// TestThresholdDirective: `@min X.` sets the file's threshold; X must be a
// number in (0, 1] and a file sets it once. The expected messages are
// written by hand, each at file:line:col.
func TestThresholdDirective(t *testing.T) {
	for _, tc := range []struct {
		src   string
		want  []float64
		print string
		err   string
	}{
		{src: "@min 0.1.", want: []float64{0.1}, print: "@min 0.1.\n"},
		{src: "@min 1.", want: []float64{1}, print: "@min 1.\n"},
		{src: "@min 1.0.", want: []float64{1}, print: "@min 1.\n"},
		{src: "@min 1e-9.", want: []float64{1e-9}, print: "@min 1e-09.\n"},
		{src: "% mined\n@aggregate max.\n@min 0.05.\n0.5 :: w(X, Y) :- h(Y, X).",
			want:  []float64{0.05},
			print: "@min 0.05.\n@aggregate max.\n\n0.5 :: w(X, Y) :- h(Y, X).\n"},
		{src: "p(a).", print: "p(a).\n"},
		{src: "@min 0.", err: "f.dl:1:6: error: @min 0 is outside (0, 1]: the threshold is the smallest confidence kept"},
		{src: "@min 1.5.", err: "f.dl:1:6: error: @min 1.5 is outside (0, 1]: the threshold is the smallest confidence kept"},
		{src: "p(a).\n  @min -0.1.", err: "f.dl:2:8: error: @min -0.1 is outside (0, 1]: the threshold is the smallest confidence kept"},
		{src: "@min 1e-400.", err: "f.dl:1:6: error: @min 1e-400 is outside (0, 1]: the threshold is the smallest confidence kept"},
		{src: "@min abc.", err: "f.dl:1:6: error: @min takes a number in (0, 1], not abc"},
		{src: "@min X.", err: "f.dl:1:6: error: @min takes a number in (0, 1], not X"},
		{src: `@min "0.1".`, err: `f.dl:1:6: error: @min takes a number in (0, 1], not "0.1"`},
		{src: "@min.", err: `f.dl:1:5: error: unexpected ".", expected <number> "."`},
		{src: "@min 0.1 0.2.", err: `f.dl:1:10: error: unexpected "0.2", expected "."`},
		{src: "@min 0.1", err: `f.dl:1:9: error: unexpected end of file, expected "."`},
		{src: "@min 0.1.\np(a).\n@min 0.2.", want: []float64{0.1},
			err: "f.dl:3:1: error: duplicate @min, first at line 1: a file has one threshold"},
		{src: "@min 0.1.\n@min 0.1.", want: []float64{0.1},
			err: "f.dl:2:1: error: duplicate @min, first at line 1: a file has one threshold"},
	} {
		p, err := ParseString("f.dl", tc.src)
		var got []float64
		for _, th := range p.Thresholds {
			got = append(got, th.Min)
		}
		if !equalFloats(got, tc.want) {
			t.Errorf("%q: thresholds %v, want %v", tc.src, got, tc.want)
		}
		if tc.err != "" {
			// the first line of the rendering: position, severity, message
			if err == nil || strings.SplitN(err.Error(), "\n", 2)[0] != tc.err {
				t.Errorf("%q: error %v, want %s", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if s := p.String(); s != tc.print {
			t.Errorf("%q prints as\n%s\nwant\n%s", tc.src, s, tc.print)
		}
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestThresholdPosition: the directive's position is where it starts.
func TestThresholdPosition(t *testing.T) {
	p, err := ParseString("f.dl", "p(a).\n\n   @min 0.25.\n")
	if err != nil {
		t.Fatal(err)
	}
	want := datalog.Threshold{Min: 0.25, Pos: datalog.Pos{File: "f.dl", Line: 3, Col: 4}}
	if len(p.Thresholds) != 1 || p.Thresholds[0] != want {
		t.Errorf("thresholds %v, want [%v]", p.Thresholds, want)
	}
	if m, ok := p.Threshold(); !ok || m != 0.25 {
		t.Errorf("Threshold() = %v, %v, want 0.25, true", m, ok)
	}
}

// TestParseFileThresholds: ParseFile keeps the @min of the file and of the
// .dl files it imports, in the order read; the program's threshold is the
// smallest. A duplicate in an imported file is an error at that file.
func TestParseFileThresholds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	b := write("b.dl", "@min 0.05.\n")
	write("c.dl", "p(a).\n")
	main := write("a.dl", "@min 0.1.\n@import \"b.dl\".\n@import \"c.dl\".\nw(X, Y) :- h(Y, X).\n")
	p, err := ParseFile(main)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Thresholds) != 2 || p.Thresholds[0].Min != 0.1 || p.Thresholds[0].Pos.File != main ||
		p.Thresholds[1].Min != 0.05 || p.Thresholds[1].Pos.File != b {
		t.Errorf("thresholds %v, want 0.1 in %s then 0.05 in %s", p.Thresholds, main, b)
	}
	if m, ok := p.Threshold(); !ok || m != 0.05 {
		t.Errorf("Threshold() = %v, %v, want 0.05, true", m, ok)
	}
	// two files with one @min each are fine; one file with two is not
	write("d.dl", "@min 0.2.\n\n@min 0.3.\n")
	main2 := write("e.dl", "@min 0.1.\n@import \"d.dl\".\n")
	_, err = ParseFile(main2)
	want := filepath.Join(dir, "d.dl") + ":3:1: error: duplicate @min, first at line 1: a file has one threshold"
	if err == nil || strings.SplitN(err.Error(), "\n", 2)[0] != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
