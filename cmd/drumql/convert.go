package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/exchange"
	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/rulefile"
)

// convertCmd is drumql convert.
type convertCmd struct {
	File           string  `arg:"" name:"file" help:"The rule file to convert."`
	From           string  `required:"" enum:"anyburl,amie,drumql" placeholder:"FORMAT" help:"Format of FILE: anyburl (AnyBURL's rule files, which SAFRAN and PyClause read too), amie (AMIE 3's TSV output) or drumql (a Datalog rule file)."`
	To             string  `enum:",drumql,anyburl" default:"" placeholder:"FORMAT" help:"Format to write: drumql or anyburl (default: drumql, or anyburl --from drumql)."`
	Out            string  `short:"o" placeholder:"FILE" help:"Write to FILE (default: standard output)."`
	Weights        string  `enum:"counts,column" default:"counts" help:"Reading anyburl or amie, a rule's weight: counts (correct/(predicted + --smoothing), from the file's counts) or column (the file's confidence column as written)."`
	Smoothing      int     `default:"5" placeholder:"N" help:"Unseen negative examples added to a rule's predictions (SAFRAN's and PyClause's default, and drumql mine's: 5; 0 for the plain confidence). Writing anyburl: what counts made up for a rule without counts assume."`
	AMIEConfidence string  `name:"amie-confidence" enum:"pca,std" default:"pca" help:"Reading amie: the PCA confidence (PCA Body size, PCA Confidence) or the standard one (Body size, Std Confidence)."`
	Threshold      float64 `default:"0.1" placeholder:"X" help:"Writing drumql: the threshold written into the file (@min X, in (0, 1]), as drumql mine writes it."`
}

// Help is shown under the command's usage.
func (convertCmd) Help() string {
	return `Reads AnyBURL's rule files (predicted, correct, confidence, rule: the format
SAFRAN and PyClause read) and AMIE 3's TSV output into drumql's Datalog, and
writes drumql's rules in AnyBURL's format. A rule's weight is its smoothed
confidence correct/(predicted + 5), as drumql mine weights its own rules.
AnyBURL's zero-body rules (r(X,c) <=) have no Datalog form: their relations
rank by the slot prior instead (@aggregate max(prior = 1)). Rules AnyBURL
cannot express (negation, expressions, aggregates, atoms that are not binary,
bodies that are not a path) are skipped; stderr counts whatever was left out.

Examples:
  drumql convert --from anyburl rules-100 --out anyburl.dl
  drumql eval --rules anyburl.dl --combine noisy-or
  drumql convert --from amie amie-output.tsv --out amie.dl
  drumql convert --from drumql --to anyburl families.dl --out families.txt`
}

func (c *convertCmd) Run(e *env) error {
	if c.To == "" {
		c.To = "drumql"
		if c.From == "drumql" {
			c.To = "anyburl"
		}
	}
	var bad []error
	if c.From == c.To {
		bad = append(bad, fmt.Errorf("--from %s --to %s: nothing to convert", c.From, c.To))
	}
	if c.Smoothing < 0 {
		bad = append(bad, fmt.Errorf("--smoothing %d: want a number of examples, at least 0", c.Smoothing))
	}
	if !(c.Threshold > 0 && c.Threshold <= 1) {
		bad = append(bad, fmt.Errorf("--threshold %g: the threshold written as @min must be in (0, 1]", c.Threshold))
	}
	if len(bad) > 0 {
		return inputErr(fmt.Errorf("convert: %w", errors.Join(bad...)))
	}
	if err := checkOutput("--out", c.Out); err != nil {
		return err
	}
	opts, err := e.fileOptions()
	if err != nil {
		return err
	}
	src, err := parser.ReadSource(e.ctx, c.File, opts.MaxFileSize)
	if err != nil {
		return convertReadError(e.ctx, c.File, err, opts.TooLargeHint)
	}
	var buf bytes.Buffer
	if c.From == "drumql" {
		err = c.fromDrumql(e, src, &buf)
	} else {
		err = c.fromLearner(e, src, &buf)
	}
	if err != nil {
		return err
	}
	if c.Out == "" {
		_, err = e.stdout.Write(buf.Bytes())
		return err
	}
	return atomicfile.WriteFile(c.Out, buf.Bytes())
}

// convertReadError reports a rule file that could not be read.
func convertReadError(ctx context.Context, file string, err error, tooLarge string) error {
	var tl *parser.TooLargeError
	var pe *fs.PathError
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("convert: interrupted while reading %s", file)
	case errors.As(err, &tl):
		return inputErr(fmt.Errorf("convert: %s: %w; %s", file, err, tooLarge))
	case errors.Is(err, parser.ErrNotRegular):
		return inputErr(fmt.Errorf("convert: %s: not a regular file", file))
	case errors.As(err, &pe):
		return inputErr(fmt.Errorf("convert: %s: %w", file, pe.Err))
	}
	return inputErr(fmt.Errorf("convert: %s: %w", file, err))
}

// fromLearner converts an AnyBURL or AMIE file.
func (c *convertCmd) fromLearner(e *env, src []byte, out *bytes.Buffer) error {
	opt := exchange.ReadOptions{Column: c.Weights == "column", Smoothing: c.Smoothing, Std: c.AMIEConfidence == "std"}
	read := exchange.ReadAnyBURL
	if c.From == "amie" {
		read = exchange.ReadAMIE
	}
	res, err := read(c.File, bytes.NewReader(src), opt)
	if err != nil {
		if hint := exchange.Hint(c.From, src); hint != "" {
			return inputErr(fmt.Errorf("convert: nothing was converted:\n%w\n%s", err, hint))
		}
		return inputErr(fmt.Errorf("convert: nothing was converted:\n%w", err))
	}
	c.reportRead(e.stderr, res, e.cli.Quiet)
	rules := res.Program.Rules
	if c.To == "anyburl" {
		rep, err := exchange.WriteAnyBURL(out, rules, exchange.WriteOptions{Smoothing: c.Smoothing})
		if err != nil {
			return err
		}
		c.reportWrite(e.stderr, &rep, nil, e.cli.Quiet)
		return nil
	}
	if err := exchange.WriteDatalog(out, c.From, c.File, res, opt, c.Threshold); err != nil {
		return inputErr(fmt.Errorf("convert: the rules of %s do not make a valid program:\n%w", c.File, err))
	}
	return nil
}

// reportRead says on stderr what a read left out or changed, and (unless
// quiet) how many rules it read.
func (c *convertCmd) reportRead(w io.Writer, res *exchange.Result, quiet bool) {
	for _, note := range res.Report.Notes() {
		fmt.Fprintf(w, "convert: %s\n", note)
	}
	if !quiet {
		fmt.Fprintf(w, "convert: %d rules of %d lines read from %s\n", res.Report.Rules, res.Report.Lines, c.File)
	}
}

// fromDrumql converts a Datalog rule file to AnyBURL's format.
func (c *convertCmd) fromDrumql(e *env, src []byte, out *bytes.Buffer) error {
	prog, err := exchange.ReadDatalog(c.File, src)
	if ds, ok := err.(datalog.Diagnostics); ok {
		return inputErr(rulefile.DiagnosticsError{Diagnostics: ds})
	} else if err != nil {
		return inputErr(fmt.Errorf("convert: %w", err))
	}
	rep, err := exchange.WriteAnyBURL(out, prog.Rules, exchange.WriteOptions{Smoothing: c.Smoothing})
	if err != nil {
		return err
	}
	c.reportWrite(e.stderr, &rep, prog, e.cli.Quiet)
	return nil
}

// reportWrite says on stderr what writing AnyBURL's format left out or
// changed, and (unless quiet) how many rules it wrote; prog, when given,
// is the program read (its facts, queries, imports and directives are not
// written).
func (c *convertCmd) reportWrite(w io.Writer, rep *exchange.WriteReport, prog *datalog.Program, quiet bool) {
	for _, note := range rep.Notes(exchange.WriteOptions{Smoothing: c.Smoothing}) {
		fmt.Fprintf(w, "convert: %s\n", note)
	}
	if prog != nil {
		if not := exchange.NotWritten(prog); not != "" {
			fmt.Fprintf(w, "convert: not in AnyBURL's format, not written: %s\n", not)
		}
	}
	if !quiet {
		fmt.Fprintf(w, "convert: %d rules written in AnyBURL's format\n", rep.Written)
	}
}
