package parser

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/tsv"
)

// ParseFile reads and parses the Datalog program in the file at path and
// resolves its imports, recursively: `@import "p".` names a file relative
// to the directory of the file that imports it. A file whose name ends in
// ".dl" is parsed as Datalog (its facts, rules, queries, imports and
// directives are added: the `@aggregate` and `@min` directives of every
// file are kept, in the order read, so an imported file's threshold takes
// part in [datalog.Program.Threshold]); any other file is read with
// [ParseTriples] and its triples are added as facts. Each file is read at most once; an import cycle is an
// error at the import that closes it. Positions of imported statements
// name the imported file (the path as joined with the importer's
// directory). The returned program's Imports is empty: they are resolved.
//
// Errors of all files (unreadable files, syntax errors, bad triple lines)
// are returned together as a [datalog.Diagnostics], in source order, with
// the program holding everything that could be read.
func ParseFile(path string) (*datalog.Program, error) {
	l := &loader{prog: &datalog.Program{}, seen: map[string]bool{}, rank: map[string]int{}}
	src, err := os.ReadFile(path)
	if err != nil {
		return l.prog, datalog.Diagnostics{{Severity: datalog.Error, Msg: err.Error()}}
	}
	l.loadDL(path, string(src))
	// Source order: files in the order they were read, then line, column.
	slices.SortStableFunc(l.ds, func(a, b datalog.Diagnostic) int {
		return cmp.Or(cmp.Compare(l.rank[a.Pos.File], l.rank[b.Pos.File]),
			cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
	return l.prog, l.ds.Err()
}

type loader struct {
	prog  *datalog.Program
	seen  map[string]bool // absolute paths read
	stack []string        // the chain of .dl files being read
	ds    datalog.Diagnostics
	rank  map[string]int // file name -> order in which it was read
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

func (l *loader) loadDL(path, src string) {
	abs := absPath(path)
	l.seen[abs] = true
	l.rank[path] = len(l.rank)
	l.stack = append(l.stack, path)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	p := &datalog.Program{}
	l.ds = append(l.ds, parseInto(p, path, src)...)
	l.prog.Facts = append(l.prog.Facts, p.Facts...)
	l.prog.Rules = append(l.prog.Rules, p.Rules...)
	l.prog.Queries = append(l.prog.Queries, p.Queries...)
	l.prog.Aggregates = append(l.prog.Aggregates, p.Aggregates...)
	l.prog.Thresholds = append(l.prog.Thresholds, p.Thresholds...)
	for _, im := range p.Imports {
		target := im.Path
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		ta := absPath(target)
		if strings.HasSuffix(target, ".dl") {
			if i := l.onStack(ta); i >= 0 {
				chain := append(append([]string{}, l.stack[i:]...), target)
				l.errorf(im.Pos, "import cycle: %s", strings.Join(chain, " -> "))
				continue
			}
		}
		if l.seen[ta] {
			continue
		}
		data, err := os.ReadFile(target)
		if err != nil {
			l.errorf(im.Pos, "cannot import %q: %v", im.Path, err)
			continue
		}
		if strings.HasSuffix(target, ".dl") {
			l.loadDL(target, string(data))
			continue
		}
		l.seen[ta] = true
		l.rank[target] = len(l.rank)
		facts, err := ParseTriples(target, data)
		l.prog.Facts = append(l.prog.Facts, facts...)
		if ds, ok := err.(datalog.Diagnostics); ok {
			l.ds = append(l.ds, ds...)
		}
	}
}

func (l *loader) onStack(abs string) int {
	for i, p := range l.stack {
		if absPath(p) == abs {
			return i
		}
	}
	return -1
}

func (l *loader) errorf(p datalog.Pos, format string, args ...any) {
	l.ds = append(l.ds, datalog.Diagnostic{Pos: p, Severity: datalog.Error, Msg: fmt.Sprintf(format, args...)})
}

// ParseTriples reads tab-separated triples, `head<TAB>relation<TAB>tail`
// per line, as binary facts relation(head, tail) with weight 1 and
// positions in the file (the fact at column 1, the atom at the relation,
// the arguments at their fields). The format is the one `drumql load`
// reads: a UTF-8 byte order mark and CRLF line endings are accepted, blank
// (empty or white-space) lines are skipped, fields are kept verbatim.
// Every malformed line (not three fields, an empty or white-space field,
// invalid UTF-8) is reported, as a [datalog.Diagnostics] at file:line:col;
// the good lines are still returned.
func ParseTriples(filename string, data []byte) ([]datalog.Fact, error) {
	var facts []datalog.Fact
	var ds datalog.Diagnostics
	for t, err := range tsv.Parse(filename, string(data)) {
		if err != nil {
			e := err.(*tsv.Error) // tsv.Parse yields no other error
			ds = append(ds, datalog.Diagnostic{Pos: datalog.Pos{File: filename, Line: e.Line, Col: e.Col},
				Severity: datalog.Error, Msg: e.Reason}) // the words drumql load uses
			continue
		}
		colR := utf8.RuneCountInString(t.Head) + 2
		colT := colR + utf8.RuneCountInString(t.Relation) + 1
		facts = append(facts, datalog.Fact{
			Weight: 1,
			Atom: datalog.Atom{Pred: t.Relation, Pos: datalog.Pos{File: filename, Line: t.Line, Col: colR}, Args: []datalog.Term{
				{Kind: datalog.Symbol, Value: t.Head, Pos: datalog.Pos{File: filename, Line: t.Line, Col: 1}},
				{Kind: datalog.Symbol, Value: t.Tail, Pos: datalog.Pos{File: filename, Line: t.Line, Col: colT}},
			}},
			Pos: datalog.Pos{File: filename, Line: t.Line, Col: 1},
		})
	}
	return facts, ds.Err()
}
