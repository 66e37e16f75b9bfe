package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/miner"
)

// A mined file's first line ends with the SHA-256 of the file without that
// suffix: mine replaces a file only while the checksum still holds, so a
// file edited by hand (as the README invites) is not overwritten without
// --force.
const minedSumTag = "; sha256 "

// minedSumRe matches the checksum at the end of a mined file's first line.
var minedSumRe = regexp.MustCompile(`; sha256 ([0-9a-f]{64})$`)

// stampMined appends to the first line of data, a mined file, the
// checksum of the whole file (the suffix left out).
func stampMined(data []byte) []byte {
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	sum := sha256.Sum256(data)
	out := make([]byte, 0, len(data)+len(minedSumTag)+64)
	out = append(out, first...)
	out = append(out, minedSumTag+hex.EncodeToString(sum[:])+"\n"...)
	return append(out, rest...)
}

// minedState says what an existing output file is.
type minedState int

const (
	minedIntact  minedState = iota // written by mine and not changed since (or empty)
	minedForeign                   // not a file mine writes
	minedOld                       // a mined file without a checksum (an older drumql)
	minedEdited                    // a mined file changed since mine wrote it
)

// minedStateOf classifies the content of an existing --out file.
func minedStateOf(data []byte) minedState {
	if len(data) == 0 {
		return minedIntact // nothing to lose
	}
	if !bytes.HasPrefix(data, []byte(minedHeader)) {
		return minedForeign
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	m := minedSumRe.FindSubmatchIndex(first)
	if m == nil {
		return minedOld
	}
	unstamped := append(append(append([]byte{}, first[:m[0]]...), '\n'), rest...)
	sum := sha256.Sum256(unstamped)
	if hex.EncodeToString(sum[:]) != string(first[m[2]:m[3]]) {
		return minedEdited
	}
	return minedIntact
}

// checkReplace refuses, without force, to replace the file at path (the
// rules' --out) unless mine wrote it and it has not changed since; a path
// with no file is fine.
func checkReplace(path string, force bool) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || force {
		return nil
	}
	if err != nil {
		return inputErr(fmt.Errorf("--out %s: %w", path, err))
	}
	var why string
	switch minedStateOf(data) {
	case minedIntact:
		return nil
	case minedForeign:
		why = "the file was not written by drumql mine"
	case minedOld:
		why = "the file has no checksum (an older drumql mine wrote it), so mine cannot tell whether it was edited"
	case minedEdited:
		why = "the file was edited since drumql mine wrote it (its checksum no longer matches)"
	}
	return inputErr(fmt.Errorf("--out %s: %s; pass --force to replace it, or choose another --out", path, why))
}

// checkOutput reports, before any work, an output path (of flag) that
// cannot be written: its directory is missing or not writable, or it names
// a directory.
func checkOutput(flag, path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return inputErr(fmt.Errorf("%s %s: the directory %s does not exist", flag, path, dir))
	case err != nil:
		return inputErr(fmt.Errorf("%s %s: %w", flag, path, err))
	case !fi.IsDir():
		return inputErr(fmt.Errorf("%s %s: %s is not a directory", flag, path, dir))
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return inputErr(fmt.Errorf("%s %s: is a directory", flag, path))
	}
	f, err := os.CreateTemp(dir, ".drumql-check*")
	if err != nil {
		return inputErr(fmt.Errorf("%s %s: cannot write to %s: %w", flag, path, dir, errors.Unwrap(err)))
	}
	f.Close()
	return os.Remove(f.Name())
}

// checkOutputs checks every output path of mine before any work (see
// checkOutput and checkReplace).
func (c *mineCmd) checkOutputs() error {
	return errors.Join(checkOutput("--out", c.Out), checkOutput("--save-model", c.SaveModel),
		checkOutput("--report", c.Report), checkOutput("--write-config", c.WriteConfig), checkReplaceFlag(c.Out, c.Force))
}

// checkReplaceFlag is checkReplace for a set --out.
func checkReplaceFlag(path string, force bool) error {
	if path == "" {
		return nil
	}
	return checkReplace(path, force)
}

// writeMined writes the stamped rules to path. If the file changed while
// mine ran (it was checked before training) and force is not set, the
// rules go to a new file beside it instead, and the error names it: the
// work is not lost, nor the edit.
func writeMined(path string, data []byte, force bool) error {
	if err := checkReplace(path, force); err != nil {
		alt := path + ".new"
		for i := 2; ; i++ {
			if _, serr := os.Lstat(alt); errors.Is(serr, os.ErrNotExist) {
				break
			}
			alt = fmt.Sprintf("%s.new%d", path, i)
		}
		if werr := atomicfile.WriteFile(alt, data); werr != nil {
			return fmt.Errorf("%w; the rules could not be saved beside it: %w", err, werr)
		}
		return fmt.Errorf("%w (it changed while mine ran); the rules were written to %s", err, alt)
	}
	return atomicfile.WriteFile(path, data)
}

// countHeads counts the distinct head predicates of rules.
func countHeads(rules []miner.MinedRule) int {
	n := 0
	for i := range rules {
		if i == 0 || rules[i].Head != rules[i-1].Head {
			n++
		}
	}
	return n
}

// writeRules writes the header comment, the @aggregate directives, the
// @min directive (the threshold min, with a comment on what it is for) and
// the rules, each with its comment (score, ranks, support), a blank line
// between head relations.
func writeRules(b *bytes.Buffer, header string, min float64, directives []datalog.Aggregate, rules []miner.MinedRule) {
	writeRuleFile(b, header, min, directives, miner.DatalogRules(rules))
}

// writeRuleFile writes a rule file as drumql mine writes it (see
// writeRules): the header comment, the directives, the threshold and the
// rules with their comments, a "% ---- head ----" line before each run of
// rules with the same head relation.
func writeRuleFile(b *bytes.Buffer, header string, min float64, directives []datalog.Aggregate, rules []datalog.Rule) {
	b.WriteString(header + "\n")
	if len(directives) > 0 {
		b.WriteByte('\n')
	}
	for _, d := range directives {
		b.WriteString(d.String() + "\n")
	}
	b.WriteString("\n% infer, query and explain drop derivations of these rules below @min (their --min overrides it):\n")
	b.WriteString("% hundreds of weak rules per head, chained through each other, would derive nearly every pair.\n")
	b.WriteString(datalog.Threshold{Min: min}.String() + "\n")
	for i, r := range rules {
		if i == 0 || r.Head.Pred != rules[i-1].Head.Pred {
			fmt.Fprintf(b, "\n%% ---- %s ----\n", r.Head.Pred)
		}
		b.WriteString(r.String())
		b.WriteByte('\n')
	}
}
