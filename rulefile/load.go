package rulefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/souffle"
)

// Set is the merged program of several rule files.
type Set struct {
	Prog  *datalog.Program
	Files []string
	// Rejected counts the mined rules left out by the merge.
	Rejected int
	// Warnings are the merge's (each mined rule left out) then the
	// validation's, in that order.
	Warnings datalog.Diagnostics
}

// InterruptedError is the error of [Load] when its context was canceled
// while it read File.
type InterruptedError struct{ File string }

// Error says which file was being read.
func (e *InterruptedError) Error() string { return fmt.Sprintf("interrupted while reading %s", e.File) }

// maxSourceSize bounds what Source reads: diagnostics point into files the
// parser has read (under its size limit), so this only guards against a
// file that grew since.
const maxSourceSize = 1 << 32

// Source returns the text of a file for diagnostics (nil if unreadable, or
// not a regular file): the source argument of [datalog.Diagnostics.Render].
func Source(file string) []byte {
	b, err := parser.ReadSource(context.Background(), file, maxSourceSize)
	if err != nil {
		return nil
	}
	return b
}

// Load parses the files (resolving @import with opts), merges the mined
// ones ([IsMined]) into the expert ones and validates the result.
//
// The directives of every file are kept, in file order: @aggregate (the
// first for a relation wins) and @min. The merged program's threshold is
// the smallest @min of the files (datalog.Program.Threshold), so that it
// keeps every derivation any of them keeps; a file without @min makes no
// claim: a hand-written expert file merged with a mined file is evaluated
// at the mined file's threshold, and files without any exactly.
//
// The error is [datalog.Diagnostics] listing every problem of every file
// (the errors of what did parse too, so that one run shows them all), an
// [*InterruptedError], or the parser's error for a file it could not read.
// When the merged program does not validate, the Set is returned with the
// error, for the merge's warnings.
func Load(ctx context.Context, files []string, opts parser.FileOptions) (*Set, error) {
	expert := &datalog.Program{}
	mined := &datalog.Program{}
	var aggs []datalog.Aggregate // every file's directives, in file order
	var ths []datalog.Threshold
	var rgs []datalog.RuleGroups
	var all datalog.Diagnostics
	for _, f := range files {
		p, err := parseFile(ctx, f, opts)
		if err != nil {
			var ds datalog.Diagnostics
			switch {
			case errors.As(err, &ds):
				all = append(all, ds...)
			case ctx.Err() != nil:
				return nil, &InterruptedError{File: f}
			default:
				return nil, err
			}
		}
		if p == nil {
			continue
		}
		dst := expert
		if IsMined(f) {
			dst = mined
		}
		dst.Facts = append(dst.Facts, p.Facts...)
		dst.Rules = append(dst.Rules, p.Rules...)
		dst.Queries = append(dst.Queries, p.Queries...)
		aggs = append(aggs, p.Aggregates...)
		ths = append(ths, p.Thresholds...)
		rgs = append(rgs, p.RuleGroups...)
	}
	if all.HasErrors() {
		both := concat(expert, mined)
		both.Aggregates = aggs
		both.Thresholds = ths
		both.RuleGroups = rgs
		for _, d := range datalog.Validate(both) {
			if d.Severity == datalog.Error {
				all = append(all, d)
			}
		}
		all.Sort()
		return nil, all
	}
	s := &Set{Prog: expert, Files: files}
	if len(mined.Rules)+len(mined.Facts) > 0 {
		merged, mds := datalog.Merge(expert, mined)
		for _, d := range mds {
			if d.Severity == datalog.Error {
				s.Rejected++
				d.Severity = datalog.Warning
				d.Msg = "mined rule left out: " + d.Msg
			}
			s.Warnings = append(s.Warnings, warnings(datalog.Diagnostics{d})...)
		}
		s.Prog = merged
	}
	s.Prog.Aggregates = aggs
	s.Prog.Thresholds = ths
	s.Prog.RuleGroups = rgs
	ds := datalog.Validate(s.Prog)
	if ds.HasErrors() {
		return s, ds
	}
	s.Warnings = append(s.Warnings, warnings(ds)...)
	return s, nil
}

// warnings returns the diagnostics of ds that are not errors.
func warnings(ds datalog.Diagnostics) datalog.Diagnostics {
	var warn datalog.Diagnostics
	for _, d := range ds {
		if d.Severity != datalog.Error {
			warn = append(warn, d)
		}
	}
	return warn
}

// concat returns a program with the facts, rules and queries of a then b.
func concat(a, b *datalog.Program) *datalog.Program {
	return &datalog.Program{
		Facts:   append(append([]datalog.Fact(nil), a.Facts...), b.Facts...),
		Rules:   append(append([]datalog.Rule(nil), a.Rules...), b.Rules...),
		Queries: append(append([]datalog.Query(nil), a.Queries...), b.Queries...),
	}
}

// sniffSize is how much of a rule file is read to tell a Soufflé file
// (souffle.IsSouffle) from one of drumql's dialect.
const sniffSize = 1 << 20

// parseFile parses the rule file f: a Soufflé file (souffle.IsSouffle of
// its name and first megabyte) through souffle.ReadRules, any other with
// the parser. A mined file, or one that is not a regular file, is
// drumql's.
func parseFile(ctx context.Context, f string, opts parser.FileOptions) (*datalog.Program, error) {
	if !IsMined(f) {
		if src, ok := souffleSource(f, opts); ok {
			return souffle.ReadRules(f, src)
		}
	}
	return parser.ParseFileContext(ctx, f, opts)
}

// souffleSource returns the text of f when it is a regular file of at most
// opts' largest size that souffle.IsSouffle takes for a Soufflé file.
func souffleSource(f string, opts parser.FileOptions) ([]byte, bool) {
	fi, err := os.Stat(f)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	max := opts.MaxFileSize
	if max <= 0 {
		max = parser.DefaultMaxFileSize
	}
	if fi.Size() > max {
		return nil, false
	}
	fh, err := os.Open(f)
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	head := make([]byte, min(fi.Size(), sniffSize))
	if _, err := io.ReadFull(fh, head); err != nil || !souffle.IsSouffle(f, head) {
		return nil, false
	}
	src, err := os.ReadFile(f)
	return src, err == nil
}
