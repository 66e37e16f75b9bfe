package main

import (
	"errors"
	"fmt"

	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/rulefile"
)

// replaceErr words rulefile's refusal to replace the --out file as mine
// says it, an input error (exit 2); other errors are returned as they are.
func replaceErr(err error) error {
	re, ok := errors.AsType[*rulefile.ReplaceError](err)
	if !ok {
		return err
	}
	msg := fmt.Sprintf("--out %s: %s; pass --force to replace it, or choose another --out", re.Path, re.Why)
	if re.Why == "" {
		msg = fmt.Sprintf("--out %s: %v", re.Path, re.Err)
	}
	switch {
	case re.BesideErr != nil:
		return inputErr(fmt.Errorf("%s; the rules could not be saved beside it: %w", msg, re.BesideErr))
	case re.Beside != "":
		msg += fmt.Sprintf(" (it changed while mine ran); the rules were written to %s", re.Beside)
	}
	return inputErr(errors.New(msg))
}

// checkOutput reports, before any work, an output path (of flag) that
// cannot be written: its directory is missing or not writable, or it names
// a directory.
func checkOutput(flag, path string) error {
	if path == "" {
		return nil
	}
	err := atomicfile.CheckWritable(path)
	if _, ok := errors.AsType[*atomicfile.NotWritableError](err); ok {
		return inputErr(fmt.Errorf("%s %s: %w", flag, path, err))
	}
	return err
}

// checkOutputs checks every output path of mine before any work (see
// checkOutput and rulefile.CheckReplace).
func (c *mineCmd) checkOutputs() error {
	return errors.Join(checkOutput("--out", c.Out), checkOutput("--save-model", c.SaveModel),
		checkOutput("--report", c.Report), checkOutput("--write-config", c.WriteConfig), checkReplaceFlag(c.Out, c.Force))
}

// checkReplaceFlag is rulefile.CheckReplace for a set --out, its refusal an
// input error.
func checkReplaceFlag(path string, force bool) error {
	if path == "" {
		return nil
	}
	return replaceErr(rulefile.CheckReplace(path, force))
}
