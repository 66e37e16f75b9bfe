package rulefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
)

// TestRender: DiagnosticsError shows every diagnostic with its source line
// and caret; WriteWarnings writes the warnings only.
func TestRender(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.dl")
	if err := os.WriteFile(file, []byte("p(X) :- q(X).\nr(Z) :- q(X).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds := datalog.Diagnostics{
		{Pos: datalog.Pos{File: file, Line: 2, Col: 3}, Severity: datalog.Error, Msg: "unsafe head variable Z"},
		{Pos: datalog.Pos{File: file, Line: 1, Col: 1}, Severity: datalog.Warning, Msg: "p is never used"},
	}
	var all strings.Builder
	_ = ds.Render(&all, Source)
	err := DiagnosticsError{Diagnostics: ds}
	if got, want := err.Error(), strings.TrimRight(all.String(), "\n"); got != want || !strings.Contains(got, "r(Z) :- q(X).\n  ^") {
		t.Errorf("DiagnosticsError:\n%s\nwant\n%s", got, want)
	}
	var warn strings.Builder
	if err := WriteWarnings(&warn, ds); err != nil {
		t.Fatal(err)
	}
	if got := warn.String(); !strings.Contains(got, "warning: p is never used\np(X) :- q(X).\n") || strings.Contains(got, "unsafe") {
		t.Errorf("WriteWarnings:\n%s", got)
	}
	warn.Reset()
	if err := WriteWarnings(&warn, ds[:1]); err != nil || warn.Len() != 0 {
		t.Errorf("WriteWarnings of errors only: %v, wrote %q", err, warn.String())
	}
}
