package rulefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
)

func TestStateOf(t *testing.T) {
	mined := Stamp([]byte(MinedHeader + ": 1 rules\n0.5 :: p(X, Y) :- q(Y, X).\n"))
	for _, c := range []struct {
		name string
		data string
		want State
	}{
		{"empty", "", Intact},
		{"stamped", string(mined), Intact},
		{"edited", strings.Replace(string(mined), "0.5", "0.6", 1), Edited},
		{"no checksum", MinedHeader + ": 1 rules\n0.5 :: p(X, Y) :- q(Y, X).\n", Old},
		{"expert", "p(X, Y) :- q(Y, X).\n", Foreign},
	} {
		if got := StateOf([]byte(c.data)); got != c.want {
			t.Errorf("%s: StateOf = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestWriteMined(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rules.dl")
	data := Stamp([]byte(MinedHeader + ": 0 rules\n"))
	if err := WriteMined(path, data, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteMined(path, data, false); err != nil {
		t.Fatalf("replacing an intact mined file: %v", err)
	}
	if err := os.WriteFile(path, []byte("% mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteMined(path, data, false)
	if _, ok := errors.AsType[*ReplaceError](err); !ok || !strings.Contains(err.Error(), path+".new") {
		t.Fatalf("replacing an expert file: %v, want a ReplaceError naming %s.new", err, path)
	}
	if got, _ := os.ReadFile(path + ".new"); string(got) != string(data) {
		t.Errorf("%s.new holds %q", path, got)
	}
	if err := WriteMined(path, data, true); err != nil {
		t.Fatalf("with force: %v", err)
	}
}

// TestLoad merges a mined file into an expert one: the mined rule that would
// close a cycle through negation is left out with a warning.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	expert := filepath.Join(dir, "expert.dl")
	mined := filepath.Join(dir, "mined.dl")
	write := func(path, src string) {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(expert, "single(X) :- person(X), not married(X).\nperson(ann).\n")
	write(mined, string(Stamp([]byte(MinedHeader+": 2 rules\n@min 0.1.\n0.5 :: married(X) :- single(X).\n0.5 :: adult(X) :- person(X).\n"))))
	s, err := Load(context.Background(), []string{expert, mined}, parser.FileOptions{MaxFileSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if min, _ := s.Prog.Threshold(); s.Rejected != 1 || len(s.Prog.Rules) != 2 || len(s.Warnings) != 1 || min != 0.1 {
		t.Errorf("rejected %d, rules %d, warnings %v, threshold %g; want 1, 2, one, 0.1", s.Rejected, len(s.Prog.Rules), s.Warnings, min)
	}
	write(expert, "p(X) :- q(X, Y.\nr(X) :- s(Y).\n")
	_, err = Load(context.Background(), []string{expert}, parser.FileOptions{MaxFileSize: 1 << 20})
	if ds, ok := errors.AsType[datalog.Diagnostics](err); !ok || len(ds) < 2 {
		t.Errorf("a file with a syntax error and an unsafe rule: %v, want both diagnostics", err)
	}
}

func TestUnknownBody(t *testing.T) {
	prog, err := parser.ParseString("rules.dl", `
wife(X, Y) :- husbnd(Y, X).
spouse(X, Y) :- wife(X, Y), husbnd(Y, X), known(X).
known(ann).
odd(X) :- mother(X, Y), not nobody(Y).`)
	if err != nil {
		t.Fatal(err)
	}
	ds := UnknownBody([]string{"husband", "mother"}, prog)
	if len(ds) != 2 {
		t.Fatalf("%d warnings, want 2 (husbnd once, nobody):\n%v", len(ds), ds)
	}
	if d := ds[0]; d.Pos.Line != 2 || d.Severity != datalog.Warning || !strings.Contains(d.Msg, "husbnd is not a relation") || !strings.Contains(d.Msg, "did you mean husband?") {
		t.Errorf("first warning: %v", d)
	}
	if d := ds[1]; d.Pos.Line != 5 || !strings.HasPrefix(d.Msg, "nobody ") {
		t.Errorf("second warning: %v", d)
	}
}
