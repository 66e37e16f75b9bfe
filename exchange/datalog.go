package exchange

import (
	"bytes"
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/rulefile"
)

// WriteDatalog writes the rules a read of file (in format, "anyburl" or
// "amie", with opt) gave, res, as a drumql rule file to b: sorted by head
// relation (stably: in file order within a relation; res's rules are
// sorted in place), under [Header]'s comment, with threshold as @min and
// the read's prior directives. When the rules do not make a valid program,
// it writes nothing and returns the program's diagnostics, a
// [datalog.Diagnostics].
func WriteDatalog(b *bytes.Buffer, format, file string, res *Result, opt ReadOptions, threshold float64) error {
	rules := res.Program.Rules
	prog := &datalog.Program{Rules: rules, Aggregates: res.Program.Aggregates}
	if ds := datalog.Validate(prog); ds.HasErrors() {
		return ds
	}
	slices.SortStableFunc(rules, func(a, b datalog.Rule) int { return strings.Compare(a.Head.Pred, b.Head.Pred) })
	rulefile.Write(b, Header(format, file, rules, &res.Report, opt), threshold, res.Program.Aggregates, rules, nil)
	return nil
}

// ReadDatalog reads src, the drumql rule file named file, to be written in
// AnyBURL's format: it parses and validates the program and gives its
// rules the comments written above them ([AttachComments]). A program with
// errors returns them, sorted and without the warnings, as a
// [datalog.Diagnostics]; a file the parser cannot read returns the
// parser's error.
func ReadDatalog(file string, src []byte) (*datalog.Program, error) {
	prog, err := parser.ParseString(file, string(src))
	ds, _ := err.(datalog.Diagnostics)
	if err != nil && ds == nil {
		return nil, err
	}
	ds = append(ds, datalog.Validate(prog)...)
	if ds.HasErrors() {
		ds.Sort()
		var errs datalog.Diagnostics
		for _, d := range ds {
			if d.Severity == datalog.Error {
				errs = append(errs, d)
			}
		}
		return nil, errs
	}
	AttachComments(prog, file, src)
	return prog, nil
}
