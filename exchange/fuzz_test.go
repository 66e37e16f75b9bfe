package exchange

import (
	"bytes"
	"strings"
	"testing"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
)

// FuzzReadRules: whatever the input, reading it as AnyBURL's or AMIE's
// format does not panic; what it reads is a program that validates and
// prints to text that parses back to the same rules, and whatever of it is
// written in AnyBURL's format reads back to the same rules and weights.
func FuzzReadRules(f *testing.F) {
	for _, name := range []string{"anyburl-shapes.txt", "amie-classic.tsv", "amie-datalog.tsv"} {
		f.Add(string(readFile(f, name)))
	}
	f.Add("20\t10\t0.5\tr(X,a,b) <= s(X,me_myself_i), t(me_myself_i,c)\n")
	f.Add("Rule\tPositive Examples\tPCA Body size\n?a  r  ?b  ?a!=?b   => ?a  h  ?b\t1\t2\n")
	f.Fuzz(func(t *testing.T, src string) {
		for _, read := range []func(string, *strings.Reader, ReadOptions) (*Result, error){
			func(n string, r *strings.Reader, o ReadOptions) (*Result, error) { return ReadAnyBURL(n, r, o) },
			func(n string, r *strings.Reader, o ReadOptions) (*Result, error) { return ReadAMIE(n, r, o) },
		} {
			res, err := read("f", strings.NewReader(src), ReadOptions{})
			if err != nil {
				continue
			}
			p := res.Program
			if ds := datalog.Validate(p); ds.HasErrors() {
				// Names used with other arities across rules are the
				// file's problem, reported by drumql convert.
				if !strings.Contains(ds.Error(), "arity") {
					t.Fatalf("%q: read rules that do not validate: %v", src, ds)
				}
				continue
			}
			back, err := parser.ParseString("back", p.String())
			if err != nil {
				t.Fatalf("%q: printed rules do not parse: %v\n%s", src, err, p.String())
			}
			if len(back.Rules) != len(p.Rules) {
				t.Fatalf("%q: %d rules parsed back, want %d", src, len(back.Rules), len(p.Rules))
			}
			for i := range p.Rules {
				if back.Rules[i].Key() != p.Rules[i].Key() || back.Rules[i].Weight != p.Rules[i].Weight {
					t.Fatalf("%q: rule %d parsed back as %s, want %s", src, i, back.Rules[i], p.Rules[i])
				}
			}
			var out bytes.Buffer
			rep, err := WriteAnyBURL(&out, p.Rules, WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			again, err := ReadAnyBURL("again", &out, ReadOptions{})
			if err != nil {
				t.Fatalf("%q: the rules written do not read back: %v\n%s", src, err, out.String())
			}
			if len(again.Program.Rules) > rep.Written {
				t.Fatalf("%q: %d rules written, %d read back", src, rep.Written, len(again.Program.Rules))
			}
			weights := ruleSet(p.Rules)
			for _, r := range again.Program.Rules {
				if w, ok := weights[r.Key()]; ok && w != r.Weight {
					t.Fatalf("%q: %s read back with weight %v, want %v", src, r, r.Weight, w)
				}
			}
		}
	})
}
