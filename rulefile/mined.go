package rulefile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"syscall"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/atomicfile"
)

// MinedHeader starts every rule file that drumql mine writes. Files that
// start with it are merged as mined rules by [Load]; every other file is
// expert knowledge, and any problem in it is an error.
const MinedHeader = "% drumql mine"

// A mined file's first line ends with the SHA-256 of the file without that
// suffix: mine replaces a file only while the checksum still holds, so a
// file edited by hand (as the README invites) is not overwritten without
// force.
const sumTag = "; sha256 "

// sumRe matches the checksum at the end of a mined file's first line.
var sumRe = regexp.MustCompile(`; sha256 ([0-9a-f]{64})$`)

// Stamp appends to the first line of data, a mined file, the checksum of
// the whole file (the suffix left out).
func Stamp(data []byte) []byte {
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	sum := sha256.Sum256(data)
	out := make([]byte, 0, len(data)+len(sumTag)+64)
	out = append(out, first...)
	out = append(out, sumTag+hex.EncodeToString(sum[:])+"\n"...)
	return append(out, rest...)
}

// State says what an existing output file is.
type State int

// The states of an existing file.
const (
	Intact  State = iota // written by mine and not changed since (or empty)
	Foreign              // not a file mine writes
	Old                  // a mined file without a checksum (an older drumql)
	Edited               // a mined file changed since mine wrote it
)

// StateOf classifies the content of an existing output file.
func StateOf(data []byte) State {
	if len(data) == 0 {
		return Intact // nothing to lose
	}
	if !bytes.HasPrefix(data, []byte(MinedHeader)) {
		return Foreign
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	m := sumRe.FindSubmatchIndex(first)
	if m == nil {
		return Old
	}
	unstamped := append(append(append([]byte{}, first[:m[0]]...), '\n'), rest...)
	sum := sha256.Sum256(unstamped)
	if hex.EncodeToString(sum[:]) != string(first[m[2]:m[3]]) {
		return Edited
	}
	return Intact
}

// ReplaceError is the error of [CheckReplace] and [WriteMined]: the file
// at Path may not be replaced, for the reason Why (empty when it could not
// be read: Err). From WriteMined, Beside is the file the data went to
// instead, or BesideErr the error of writing it.
type ReplaceError struct {
	Path      string
	Why       string
	Err       error
	Beside    string
	BesideErr error
}

// Error says why the file may not be replaced, and where the data went.
func (e *ReplaceError) Error() string {
	msg := e.Path + ": " + e.Why
	if e.Why == "" {
		msg = fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	switch {
	case e.BesideErr != nil:
		msg += fmt.Sprintf("; the data could not be saved beside it: %v", e.BesideErr)
	case e.Beside != "":
		msg += fmt.Sprintf(" (it changed since it was checked); the data was written to %s", e.Beside)
	}
	return msg
}

// Unwrap returns the errors of reading the file and of writing the one
// beside it, if any.
func (e *ReplaceError) Unwrap() []error { return []error{e.Err, e.BesideErr} }

// CheckReplace refuses, without force, to replace the file at path (mine's
// output) unless mine wrote it and it has not changed since, with a
// [*ReplaceError]; a path with no file is fine.
func CheckReplace(path string, force bool) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || force {
		return nil
	}
	if err != nil {
		return &ReplaceError{Path: path, Err: err}
	}
	var why string
	switch StateOf(data) {
	case Intact:
		return nil
	case Foreign:
		why = "the file was not written by drumql mine"
	case Old:
		why = "the file has no checksum (an older drumql mine wrote it), so mine cannot tell whether it was edited"
	case Edited:
		why = "the file was edited since drumql mine wrote it (its checksum no longer matches)"
	}
	return &ReplaceError{Path: path, Why: why}
}

// WriteMined writes the stamped rules to path. If the file changed since it
// was checked (mine checks before training) and force is not set, the rules
// go to a new file beside it instead (path.new, path.new2, ...), and the
// error is a [*ReplaceError] naming it: the work is not lost, nor the edit.
func WriteMined(path string, data []byte, force bool) error {
	err := CheckReplace(path, force)
	re, ok := errors.AsType[*ReplaceError](err)
	if !ok {
		if err != nil {
			return err
		}
		return atomicfile.WriteFile(path, data)
	}
	alt := path + ".new"
	for i := 2; ; i++ {
		if _, serr := os.Lstat(alt); errors.Is(serr, os.ErrNotExist) {
			break
		}
		alt = fmt.Sprintf("%s.new%d", path, i)
	}
	if werr := atomicfile.WriteFile(alt, data); werr != nil {
		re.BesideErr = werr
	} else {
		re.Beside = alt
	}
	return re
}

// IsMined reports whether the file at path was written by drumql mine. It
// is false for a file that is not a regular file (a named pipe is opened
// without waiting for a writer).
func IsMined(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.HasPrefix(line, MinedHeader)
}

// Write writes a rule file as drumql mine writes it: the header comment,
// the @aggregate directives, the @min directive (the threshold min, with a
// comment on what it is for), the rules, each with its comment, a
// "% ---- head ----" line before each run of rules with the same head
// relation, and the @groups directives of the relations ranked grouped.
func Write(b *bytes.Buffer, header string, min float64, directives []datalog.Aggregate, rules []datalog.Rule, groups []datalog.RuleGroups) {
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
	if len(groups) == 0 {
		return
	}
	b.WriteString("\n% The groups of the rules of the relations ranked grouped, found on the valid split when these rules\n")
	b.WriteString("% were mined (rule numbers count each relation's rules from 1). A relation whose rules are edited\n")
	b.WriteString("% (other than in weight) no longer matches its sum, and its groups are found again from the store.\n")
	for _, g := range groups {
		b.WriteString(g.String() + "\n")
	}
}
