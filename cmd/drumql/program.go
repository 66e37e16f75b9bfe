package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/sysmem"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/rulefile"
)

// minedHeader starts every rule file that drumql mine writes.
const minedHeader = rulefile.MinedHeader

// loadPrograms loads the rule files (rulefile.Load) and prints their
// warnings on warn. Errors come back as a rulefile.DiagnosticsError
// listing every problem of every file. The commands that evaluate say so
// when files differ in their threshold (warnThresholds).
func loadPrograms(e *env, warn io.Writer, files []string) (*rulefile.Set, error) {
	opts, err := e.fileOptions()
	if err != nil {
		return nil, err
	}
	ps, err := rulefile.Load(e.ctx, files, opts)
	if ps != nil {
		rulefile.WriteWarnings(warn, ps.Warnings)
	}
	var ds datalog.Diagnostics
	var interrupted *rulefile.InterruptedError
	switch {
	case errors.As(err, &ds):
		return nil, inputErr(rulefile.DiagnosticsError{Diagnostics: ds})
	case errors.As(err, &interrupted):
		return nil, err
	case err != nil:
		return nil, inputErr(err)
	}
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
