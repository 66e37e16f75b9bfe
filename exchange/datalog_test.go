package exchange

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
)

func TestReadDatalog(t *testing.T) {
	src := "% support=15 body=20\n0.6 :: wife(X, Y) :- husband(Y, X).\n"
	prog, err := ReadDatalog("r.dl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(prog.Rules) != 1 || !strings.Contains(prog.Rules[0].Comment, "support=15") {
		t.Errorf("ReadDatalog: %d rules, the first's comment %q; want 1 with its counts", len(prog.Rules), prog.Rules[0].Comment)
	}
	// An unsafe head variable is an error; the diagnostics hold errors only.
	_, err = ReadDatalog("r.dl", []byte("0.5 :: p(X, Z) :- q(X, Y).\n"))
	var ds datalog.Diagnostics
	if !errors.As(err, &ds) || len(ds) == 0 {
		t.Fatalf("ReadDatalog of an invalid program: %v, want its diagnostics", err)
	}
	for _, d := range ds {
		if d.Severity != datalog.Error {
			t.Errorf("a diagnostic that is not an error: %v", d)
		}
	}
	if _, err := ReadDatalog("r.dl", []byte("p(X :- .")); err == nil {
		t.Error("ReadDatalog of text that does not parse: no error")
	}
}

func TestWriteDatalog(t *testing.T) {
	const rules = "20\t15\t0.75\twife(X,Y) <= husband(Y,X)\n" +
		"40\t10\t0.25\tuncle(X,Y) <= brother(X,A), father(A,Y)\n" +
		"10\t5\t0.5\twife(X,Y) <= married(X,Y)\n"
	res, err := ReadAnyBURL("rules.txt", strings.NewReader(rules), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteDatalog(&b, "anyburl", "rules.txt", res, ReadOptions{}, 0.1); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "% drumql convert: 3 rules for 2 head relations from rules.txt (AnyBURL)\n") || !strings.Contains(out, "@min 0.1.") {
		t.Errorf("WriteDatalog's file lacks the header or the threshold:\n%s", out)
	}
	// Sorted by head relation, in file order within one.
	u, h, m := strings.Index(out, ":: uncle("), strings.Index(out, "husband(Y, X)"), strings.Index(out, "married(X, Y)")
	if !(u >= 0 && u < h && h < m) {
		t.Errorf("the rules are not sorted by head relation, stably:\n%s", out)
	}
}

// TestNotWrittenGroups: a file's @groups directives are named among what
// AnyBURL's format cannot hold.
func TestNotWrittenGroups(t *testing.T) {
	p, err := parser.ParseString("g.dl", "p(X, Y) :- q(X, Y).\n"+
		`@groups(threshold = 0.4, rules = 1, sum = "0123456789abcdef") for p.`+"\n"+
		`@groups(threshold = 0.4, rules = 1, sum = "0123456789abcdef") for q.`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := NotWritten(p), "2 @groups directives"; got != want {
		t.Errorf("NotWritten = %q, want %q", got, want)
	}
}
