package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/parser"
)

// minedHeader starts every rule file that drumql mine writes. Files that
// start with it are merged as mined rules (datalog.Merge: a mined rule that
// would close a cycle through negation is rejected with a warning and the
// rest runs); every other file is expert knowledge, and any problem in it is
// an error.
const minedHeader = "% drumql mine"

// programSet is the merged program of several .dl files, and what is needed
// to print diagnostics about it.
type programSet struct {
	Prog     *datalog.Program
	Files    []string
	Rejected int // mined rules left out by the merge
}

// maxSourceSize bounds what source reads: diagnostics point into files
// the parser has read (under --max-import-size), so this only guards
// against a file that grew since.
const maxSourceSize = 1 << 32

// source returns the text of a file for diagnostics (nil if unreadable, or
// not a regular file).
func source(file string) []byte {
	b, err := parser.ReadSource(context.Background(), file, maxSourceSize)
	if err != nil {
		return nil
	}
	return b
}

// diagError is a Datalog diagnostics error, printed with source lines and
// carets; it is an input error (exit 2).
type diagError struct {
	ds   datalog.Diagnostics
	head string
}

func (e diagError) Error() string {
	var b strings.Builder
	if e.head != "" {
		b.WriteString(e.head + "\n")
	}
	_ = e.ds.Render(&b, source)
	return strings.TrimRight(b.String(), "\n")
}

// renderWarnings prints the warnings of ds on w.
func renderWarnings(w io.Writer, ds datalog.Diagnostics) {
	var warn datalog.Diagnostics
	for _, d := range ds {
		if d.Severity != datalog.Error {
			warn = append(warn, d)
		}
	}
	if len(warn) > 0 {
		_ = warn.Render(w, source)
	}
}

// isMined reports whether the file at path was written by drumql mine.
// It is false for a file that is not a regular file (a named pipe is opened
// without waiting for a writer).
func isMined(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.HasPrefix(line, minedHeader)
}

// loadPrograms parses the files (resolving @import), merges the mined ones
// into the expert ones and validates the result. Errors come back as a
// diagError listing every problem of every file; warnings are printed on
// warn. Mined rules rejected by the merge are printed on warn as well.
//
// The directives of every file are kept, in file order: @aggregate (the
// first for a relation wins) and @min. The merged program's threshold is
// the smallest @min of the files (datalog.Program.Threshold), so that it
// keeps every derivation any of them keeps; a file without @min makes no
// claim: a hand-written expert file merged with a mined file is evaluated
// at the mined file's threshold, and files without any exactly. The
// commands that evaluate say so when files differ (warnThresholds).
func loadPrograms(e *env, warn io.Writer, files []string) (*programSet, error) {
	opts, err := e.fileOptions()
	if err != nil {
		return nil, err
	}
	expert := &datalog.Program{}
	mined := &datalog.Program{}
	var aggs []datalog.Aggregate // every file's directives, in file order
	var ths []datalog.Threshold
	var all datalog.Diagnostics
	for _, f := range files {
		p, err := parser.ParseFileContext(e.ctx, f, opts)
		if err != nil {
			var ds datalog.Diagnostics
			switch {
			case errors.As(err, &ds):
				all = append(all, ds...)
			case e.ctx.Err() != nil:
				return nil, fmt.Errorf("interrupted while reading %s", f)
			default:
				return nil, inputErr(err)
			}
		}
		if p == nil {
			continue
		}
		dst := expert
		if isMined(f) {
			dst = mined
		}
		dst.Facts = append(dst.Facts, p.Facts...)
		dst.Rules = append(dst.Rules, p.Rules...)
		dst.Queries = append(dst.Queries, p.Queries...)
		aggs = append(aggs, p.Aggregates...)
		ths = append(ths, p.Thresholds...)
	}
	if all.HasErrors() {
		// Report the problems of what did parse too, so one run shows
		// every error of the files.
		both := concat(expert, mined)
		both.Aggregates = aggs
		both.Thresholds = ths
		for _, d := range datalog.Validate(both) {
			if d.Severity == datalog.Error {
				all = append(all, d)
			}
		}
		all.Sort()
		return nil, inputErr(diagError{ds: all})
	}
	ps := &programSet{Prog: expert, Files: files}
	if len(mined.Rules)+len(mined.Facts) > 0 {
		merged, mds := datalog.Merge(expert, mined)
		var rejected datalog.Diagnostics
		for _, d := range mds {
			if d.Severity == datalog.Error {
				ps.Rejected++
				d.Severity = datalog.Warning
				d.Msg = "mined rule left out: " + d.Msg
			}
			rejected = append(rejected, d)
		}
		renderWarnings(warn, rejected)
		ps.Prog = merged
	}
	ps.Prog.Aggregates = aggs
	ps.Prog.Thresholds = ths
	ds := datalog.Validate(ps.Prog)
	if ds.HasErrors() {
		return nil, inputErr(diagError{ds: ds})
	}
	renderWarnings(warn, ds)
	return ps, nil
}

// fileOptions are the parser's options for rule files and their imports,
// from --max-import-size and --allow-import-outside.
func (e *env) fileOptions() (parser.FileOptions, error) {
	n, err := sysmem.ParseSize(e.cli.MaxImportSize)
	if err == nil && n == 0 {
		err = errors.New("must be more than 0")
	}
	if err != nil {
		return parser.FileOptions{}, inputErr(fmt.Errorf("--max-import-size: %w", err))
	}
	return parser.FileOptions{
		MaxFileSize:  n,
		AllowOutside: e.cli.AllowImportOutside,
		TooLargeHint: "pass --max-import-size SIZE to raise the limit",
		OutsideHint:  "pass --allow-import-outside to read it",
	}, nil
}

// checkCmd is drumql check.
type checkCmd struct {
	Files []string `arg:"" name:"file" help:"Datalog files (.dl) to check."`
}

// Help is shown under the command's usage.
func (checkCmd) Help() string {
	return `Parses and validates the programs together (imports resolved, mined rule
files merged into the others) and prints every problem as file:line:col with the
source line. Exit status 2 on any error.

Examples:
  drumql check examples/families/expert.dl
  drumql check family.dl expert.dl`
}

func (c *checkCmd) Run(e *env) error {
	var warn bytes.Buffer
	ps, err := loadPrograms(e, &warn, c.Files)
	io.Copy(e.stderr, &warn)
	if err != nil {
		return err
	}
	warnThresholds(e.stderr, ps.Prog)
	strata, _ := datalog.Stratify(ps.Prog)
	fmt.Fprintf(e.stdout, "ok: %d facts, %d rules, %d queries, %d strata", len(ps.Prog.Facts), len(ps.Prog.Rules), len(ps.Prog.Queries), len(strata))
	if ps.Rejected > 0 {
		fmt.Fprintf(e.stdout, " (%d mined rules left out)", ps.Rejected)
	}
	fmt.Fprintln(e.stdout)
	return nil
}

// concat returns a program with the facts, rules and queries of a then b.
func concat(a, b *datalog.Program) *datalog.Program {
	return &datalog.Program{
		Facts:   append(append([]datalog.Fact(nil), a.Facts...), b.Facts...),
		Rules:   append(append([]datalog.Rule(nil), a.Rules...), b.Rules...),
		Queries: append(append([]datalog.Query(nil), a.Queries...), b.Queries...),
	}
}

// loadRuleFlags loads the programs of --rules flags, printing their
// warnings; it returns nil when there are none.
func loadRuleFlags(e *env, files []string) (*datalog.Program, error) {
	if len(files) == 0 {
		return nil, nil
	}
	var warn bytes.Buffer
	ps, err := loadPrograms(e, &warn, files)
	io.Copy(e.stderr, &warn)
	if err != nil {
		return nil, err
	}
	return ps.Prog, nil
}
