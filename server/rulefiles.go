package server

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/atomicfile"
)

// The rule files an edit rewrites: where a statement lies in its file
// (spans), and the plan of the new texts, written atomically once the
// update has been stored.

// span is the byte range of a statement in a file and the text that
// replaces it (nothing: the statement is cut): the rules keep (indexes
// into the program's rules), each at its offset in text.
type span struct {
	from, to int
	text     []byte
	keep, at []int
}

// offsetOf is the byte offset of line and col (1-based, col in runes) in
// src, or -1.
func offsetOf(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	for c := 1; c < col; c++ {
		if off >= len(src) || src[off] == '\n' {
			return -1
		}
		_, n := utf8.DecodeRune(src[off:])
		off += n
	}
	return off
}

// statementEnd returns the offset just past the '.' that ends the
// statement starting at off, skipping quoted names, comments and the
// decimal points of numbers; -1 if there is none.
func statementEnd(src []byte, off int) int { return scanStatement(src, off, nil) }

// scanStatement is statementEnd that also calls comment, if not nil, with
// the byte range of each comment it skips.
func scanStatement(src []byte, off int, comment func(from, to int)) int {
	for i := off; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case c == '%' || (c == '/' && i+1 < len(src) && src[i+1] == '/'):
			from := i
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if comment != nil {
				comment(from, i)
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return -1
			}
			if comment != nil {
				comment(i, i+j+4)
			}
			i += j + 3
		case c == '.':
			if i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9' {
				continue
			}
			return i + 1
		}
	}
	return -1
}

// statementSpan is the text of the statement at pos in src: from its
// first character to its final '.'.
func statementSpan(src []byte, pos datalog.Pos) (span, error) {
	from := offsetOf(src, pos.Line, pos.Col)
	if from < 0 {
		return span{}, fmt.Errorf("%s:%d:%d: the file changed since it was loaded (no such position)", pos.File, pos.Line, pos.Col)
	}
	to := statementEnd(src, from)
	if to < 0 {
		return span{}, fmt.Errorf("%s:%d:%d: the file changed since it was loaded (no statement end)", pos.File, pos.Line, pos.Col)
	}
	return span{from: from, to: to}, nil
}

// ownComment matches the comment line drumql mine and drumql convert write
// directly above each rule: its score and counts, or where it came from.
var ownComment = regexp.MustCompile(`^[ \t]*%[ \t]*(score=|from (the graph|anyburl|amie)\b|support[=~])`)

// ruleSpan is the text a removed statement takes in src: the statement,
// and its lines when nothing else is on them (the line break after it
// included) with the rule's own comment line directly above it (see
// ownComment), if it has one. Every other comment stays, a comment after
// the statement on its last line too.
func ruleSpan(src []byte, pos datalog.Pos) (span, error) {
	sp, err := statementSpan(src, pos)
	if err != nil {
		return span{}, err
	}
	from, to := sp.from, sp.to
	ls := bytes.LastIndexByte(src[:from], '\n') + 1
	if len(bytes.TrimSpace(src[ls:from])) == 0 {
		from = ls
		rest := src[to:]
		if i := bytes.IndexByte(rest, '\n'); i >= 0 && len(bytes.TrimSpace(rest[:i])) == 0 {
			to += i + 1
		} else if i < 0 && len(bytes.TrimSpace(rest)) == 0 {
			to = len(src)
		}
		if from > 0 {
			above := bytes.LastIndexByte(src[:from-1], '\n') + 1
			if ownComment.Match(src[above : from-1]) {
				from = above
			}
		}
	}
	return span{from: from, to: to}, nil
}

// spliceSpans replaces the spans of src by their texts and returns the new
// text, the offset in it of each span's text (in the order of spans, which
// it sorts) and a function that maps a position of the old text after no
// span to the new text.
func spliceSpans(src []byte, spans []span) ([]byte, []int, func(line, col int) (int, int)) {
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var out []byte
	at := 0
	starts := make([]int, len(spans))
	for i, sp := range spans {
		out = append(out, src[at:sp.from]...)
		starts[i] = len(out)
		out = append(out, sp.text...)
		at = sp.to
	}
	out = append(out, src[at:]...)
	remap := func(line, col int) (int, int) {
		off := offsetOf(src, line, col)
		if off < 0 {
			return line, col
		}
		n := off
		for _, sp := range spans {
			if sp.to <= off {
				n += len(sp.text) - (sp.to - sp.from)
			}
		}
		return lineCol(out, n)
	}
	return out, starts, remap
}

// lineCol is the line and column (1-based, the column in runes) of byte
// offset off of src.
func lineCol(src []byte, off int) (int, int) {
	before := src[:off]
	l := bytes.Count(before, []byte("\n")) + 1
	ls := bytes.LastIndexByte(before, '\n') + 1
	return l, utf8.RuneCount(before[ls:]) + 1
}

// filePlan is the rewrite of the rule files an edit makes.
type filePlan struct {
	texts  map[string][]byte // file -> new text
	remaps map[string]func(line, col int) (int, int)
	// restated holds the new positions of the rules kept from a statement
	// of several rules that lost some (rewritten), by index in the program.
	restated map[int]datalog.Pos
	added    []datalog.Pos // positions of the added rules in the edits file
	create   bool          // the edits file is new
}

// movedPos is where a position is after the edit.
func (p *filePlan) movedPos(pos datalog.Pos) datalog.Pos {
	if f := p.remaps[pos.File]; f != nil {
		pos.Line, pos.Col = f(pos.Line, pos.Col)
	}
	return pos
}

func (p *filePlan) moved(r datalog.Rule) datalog.Rule {
	r.Pos = p.movedPos(r.Pos)
	return r
}

// place sets the rules and facts of next, the program after the edit: the
// rules of old the edit keeps and its facts, at their positions after the
// edit, then the added rules at theirs in the edits file.
func (p *filePlan) place(next, old *datalog.Program, gone map[int]bool, adds []datalog.Rule) {
	next.Rules = nil
	for j := range old.Rules {
		switch pos, ok := p.restated[j]; {
		case gone[j]:
		case ok:
			r := old.Rules[j]
			r.Pos = pos
			next.Rules = append(next.Rules, r)
		default:
			next.Rules = append(next.Rules, p.moved(old.Rules[j]))
		}
	}
	next.Facts = slices.Clone(old.Facts)
	for j := range next.Facts {
		next.Facts[j].Pos = p.movedPos(next.Facts[j].Pos)
	}
	for i, a := range adds {
		a.Pos = p.added[i]
		next.Rules = append(next.Rules, a)
	}
}

// editsHeader starts an edits file drumql serve creates.
const editsHeader = "% Rules added through drumql serve (POST /v1/rules): loaded with the rule files on the next start.\n"

// planFiles computes the new texts of the files the edit changes. A
// statement whose rules all go is cut (see ruleSpan); one of several rules
// (several heads, or bodies separated by ';') of which only some go is
// replaced by the rules it keeps (see restate).
func (s *Server) planFiles(prog *datalog.Program, gone map[int]bool, adds []datalog.Rule) (*filePlan, error) {
	p := &filePlan{texts: map[string][]byte{}, remaps: map[string]func(int, int) (int, int){}, restated: map[int]datalog.Pos{}}
	// the rules of each statement an edit removes rules of, by position
	stmts := map[datalog.Pos][]int{}
	var order []datalog.Pos
	for j := range prog.Rules {
		if pos := prog.Rules[j].Pos; gone[j] && pos.File != "" && stmts[pos] == nil {
			stmts[pos] = []int{}
			order = append(order, pos)
		}
	}
	for j := range prog.Rules {
		if pos := prog.Rules[j].Pos; stmts[pos] != nil {
			stmts[pos] = append(stmts[pos], j)
		}
	}
	spans := map[string][]span{}
	for _, pos := range order {
		src, ok := p.texts[pos.File]
		if !ok {
			b, err := os.ReadFile(pos.File)
			if err != nil {
				return nil, fmt.Errorf("reading the rule's file: %w", err)
			}
			src = b
			p.texts[pos.File] = src
		}
		var keep []int
		for _, j := range stmts[pos] {
			if !gone[j] {
				keep = append(keep, j)
			}
		}
		var sp span
		var err error
		if len(keep) == 0 {
			sp, err = ruleSpan(src, pos)
		} else if sp, err = statementSpan(src, pos); err == nil {
			restate(src, &sp, prog, keep)
		}
		if err != nil {
			return nil, err
		}
		spans[pos.File] = append(spans[pos.File], sp)
	}
	for f, sps := range spans {
		var starts []int
		p.texts[f], starts, p.remaps[f] = spliceSpans(p.texts[f], sps) // sorts sps
		for i, sp := range sps {
			for k, j := range sp.keep {
				l, c := lineCol(p.texts[f], starts[i]+sp.at[k])
				p.restated[j] = datalog.Pos{File: f, Line: l, Col: c}
			}
		}
	}
	if len(adds) > 0 {
		e := s.cfg.Edits
		src, ok := p.texts[e]
		if !ok {
			b, err := os.ReadFile(e)
			switch {
			case errors.Is(err, os.ErrNotExist):
				b, p.create = []byte(editsHeader), true
			case err != nil:
				return nil, fmt.Errorf("reading the edits file: %w", err)
			}
			src = b
		}
		if len(src) > 0 && src[len(src)-1] != '\n' {
			src = append(src, '\n')
		}
		line := bytes.Count(src, []byte("\n")) + 1
		for _, a := range adds {
			a.Comment = ""
			text := a.String()
			p.added = append(p.added, datalog.Pos{File: e, Line: line, Col: 1})
			src = append(src, text...)
			src = append(src, '\n')
			line += strings.Count(text, "\n") + 1
		}
		p.texts[e] = src
	}
	return p, nil
}

// restate sets the text that replaces the statement sp of src, of which
// the rules keep (indexes into prog.Rules) stay: the comments inside the
// statement, each on a line of its own, then each rule printed on a line
// of its own; the lines after the first indented as the statement's first
// line.
func restate(src []byte, sp *span, prog *datalog.Program, keep []int) {
	ls := bytes.LastIndexByte(src[:sp.from], '\n') + 1
	indent := src[ls:sp.from]
	if len(bytes.TrimSpace(indent)) > 0 {
		indent = nil
	}
	var out []byte
	line := func(text []byte) {
		if len(out) > 0 {
			out = append(out, '\n')
			out = append(out, indent...)
		}
		out = append(out, text...)
	}
	scanStatement(src, sp.from, func(from, to int) { line(src[from:to]) })
	sp.keep, sp.at = keep, nil
	for _, j := range keep {
		r := prog.Rules[j]
		r.Comment = ""
		line(nil)
		sp.at = append(sp.at, len(out))
		out = append(out, r.String()...)
	}
	sp.text = out
}

// write writes the changed files, each atomically.
func (p *filePlan) write() error {
	var errs []error
	for _, f := range slices.Sorted(maps.Keys(p.texts)) {
		if err := atomicfile.WriteFile(f, p.texts[f]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
