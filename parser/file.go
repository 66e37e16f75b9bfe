package parser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/tsv"
)

// DefaultMaxFileSize is the largest file, in bytes, that [ParseFile] and
// [ParseFileContext] read when FileOptions.MaxFileSize is 0: 256 MiB. A
// program holds about 40 times the bytes of a file of short triples
// (a million facts in 6 MiB take 250 MB); a mined file of long rules,
// about 13 (FB15k-237's default file: 694,166 rules in 153 MiB, about
// 2 GB applied by drumql eval).
const DefaultMaxFileSize = 256 << 20

// FileOptions configures [ParseFileContext]. The zero value means the
// defaults.
type FileOptions struct {
	// MaxFileSize is the largest file read, in bytes: the file given and
	// each file it imports. A larger file is an error and is not read;
	// 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// AllowOutside lets an import name a file outside the import root:
	// the directory of the file given, and the directories below it.
	// Without it, an import whose file lies elsewhere (an absolute path,
	// or a path that leaves the root through ".." or a symbolic link) is
	// an error and the file is not read.
	AllowOutside bool
	// TooLargeHint and OutsideHint, when set, end the messages of a file
	// over the size limit and of an import outside the root, to say how
	// to allow them (drumql names its flags).
	TooLargeHint, OutsideHint string
}

// maxTripleErrors is how many errors of one imported triple file are
// reported; the rest are counted in one more diagnostic.
const maxTripleErrors = 20

// ParseFile is [ParseFileContext] with the default options and no
// cancellation.
func ParseFile(path string) (*datalog.Program, error) {
	return ParseFileContext(context.Background(), path, FileOptions{})
}

// ParseFileContext reads and parses the Datalog program in the file at path
// and resolves its imports, recursively: `@import "p".` names a file
// relative to the directory of the file that imports it. A file whose name
// ends in ".dl" is parsed as Datalog (its facts, rules, queries, imports
// and directives are added: the `@aggregate` and `@min` directives of every
// file are kept, in the order read, so an imported file's threshold takes
// part in [datalog.Program.Threshold]); any other file is read with
// [ParseTriples] and its triples are added as facts. Each file is read at
// most once; an import cycle is an error at the import that closes it.
// Positions of imported statements name the imported file (the path as
// joined with the importer's directory). The returned program's Imports is
// empty: they are resolved.
//
// Every file is read with [ReadSource]: regular files only (not devices,
// pipes or directories), at most opts.MaxFileSize bytes. An import must
// name a file under the import root (see FileOptions.AllowOutside).
// Reading and parsing stop when ctx is done, with ctx's error (a file of
// less than 1 MiB is read and parsed whole).
//
// Errors of all files (unreadable or refused files, syntax errors, bad
// triple lines, the first 20 of each triple file) are returned together as
// a [datalog.Diagnostics], in source order, with the program holding
// everything that could be read.
func ParseFileContext(ctx context.Context, path string, opts FileOptions) (*datalog.Program, error) {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	l := &loader{ctx: ctx, opts: opts, prog: &datalog.Program{}, seen: map[string]bool{}, rank: map[string]int{}}
	l.top, l.root = filepath.Base(path), realPath(filepath.Dir(absPath(path)))
	src, err := ReadSource(ctx, path, opts.MaxFileSize)
	if err != nil {
		if errors.Is(err, ctx.Err()) {
			return l.prog, err
		}
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err // the diagnostic names the file
		}
		return l.prog, datalog.Diagnostics{{Pos: datalog.Pos{File: path}, Severity: datalog.Error, Msg: l.readError(err)}}
	}
	l.loadDL(path, string(src))
	if l.err != nil {
		return l.prog, l.err
	}
	// Source order: files in the order they were read, then line, column.
	slices.SortStableFunc(l.ds, func(a, b datalog.Diagnostic) int {
		return cmp.Or(cmp.Compare(l.rank[a.Pos.File], l.rank[b.Pos.File]),
			cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
	return l.prog, l.ds.Err()
}

// ErrNotRegular is returned by [ReadSource] for a path that names something
// other than a regular file (a directory, a device, a named pipe, a socket).
var ErrNotRegular = errors.New("parser: not a regular file")

// TooLargeError is returned by [ReadSource] for a file over the limit.
type TooLargeError struct {
	Size  int64 // the file's size in bytes (at least Limit+1)
	Limit int64 // the limit in bytes
}

// Error implements error.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the file has %s, more than the limit of %s", formatSize(e.Size), formatSize(e.Limit))
}

// readChunk is how much ReadSource reads between two looks at its context
// (so a short file is read whole whatever the context).
const readChunk = 1 << 20

// ReadSource reads the regular file at path, as ParseFileContext reads every
// file: a path that names a directory, a device, a named pipe or a socket is
// refused with an error that matches [ErrNotRegular] (a named pipe is
// opened without waiting for a writer), a file of more than max bytes with
// a [*TooLargeError]. When ctx is done, reading stops with ctx's error
// after the next chunk of 1 MiB.
func ReadSource(ctx context.Context, path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, fileKind(fi.Mode()))
	}
	if fi.Size() > max {
		return nil, &TooLargeError{Size: fi.Size(), Limit: max}
	}
	data := make([]byte, 0, fi.Size()+1)
	for {
		if len(data) >= readChunk && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if int64(len(data)) > max {
			return nil, &TooLargeError{Size: int64(len(data)), Limit: max} // it grew
		}
		if len(data) == cap(data) {
			data = slices.Grow(data, readChunk)
		}
		n, err := f.Read(data[len(data):min(cap(data), len(data)+readChunk)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// fileKind names the kind of a file that is not a regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "irregular"
}

// formatSize writes n bytes in the largest binary unit that keeps it at
// least 1.
func formatSize(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + units[i:i+1] + "iB"
}

type loader struct {
	ctx   context.Context
	opts  FileOptions
	top   string // the file given
	root  string // the import root, with symbolic links resolved
	prog  *datalog.Program
	seen  map[string]bool // paths read (absolute, symbolic links resolved)
	stack []string        // the chain of .dl files being read
	ds    datalog.Diagnostics
	rank  map[string]int // file name -> order in which it was read
	err   error          // ctx's error, once reading or parsing stopped on it
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// realPath is the absolute path p with symbolic links resolved; the part
// of p that does not exist is kept as written.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir := filepath.Dir(p)
	if dir == p {
		return p
	}
	return filepath.Join(realPath(dir), filepath.Base(p))
}

// readError is the message of an error of ReadSource, with the hint of a
// file over the limit.
func (l *loader) readError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "parser: ")
	if _, ok := errors.AsType[*TooLargeError](err); ok && l.opts.TooLargeHint != "" {
		msg += " (" + l.opts.TooLargeHint + ")"
	}
	return msg
}

// outside reports whether the file at target lies outside the import
// root, after symbolic links are resolved.
func (l *loader) outside(target string) bool {
	rel, err := filepath.Rel(l.root, realPath(absPath(target)))
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (l *loader) loadDL(path, src string) {
	abs := realPath(absPath(path))
	l.seen[abs] = true
	l.rank[path] = len(l.rank)
	l.stack = append(l.stack, path)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	p := &datalog.Program{}
	ds, err := parseSource(l.ctx, p, path, src, false)
	if err != nil {
		l.err = err
		return
	}
	l.ds = append(l.ds, ds...)
	l.prog.Facts = append(l.prog.Facts, p.Facts...)
	l.prog.Rules = append(l.prog.Rules, p.Rules...)
	l.prog.Queries = append(l.prog.Queries, p.Queries...)
	l.prog.Aggregates = append(l.prog.Aggregates, p.Aggregates...)
	l.prog.Thresholds = append(l.prog.Thresholds, p.Thresholds...)
	l.prog.RuleGroups = append(l.prog.RuleGroups, p.RuleGroups...)
	for _, im := range p.Imports {
		if l.err != nil {
			return
		}
		target := im.Path
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		ta := realPath(absPath(target))
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
		if !l.opts.AllowOutside && l.outside(target) {
			msg := fmt.Sprintf("cannot import %s: it is outside %s: imports are read only from the directory of %s and below it", excerpt(im.Path, maxPathExcerpt), l.root, l.top)
			if l.opts.OutsideHint != "" {
				msg += " (" + l.opts.OutsideHint + ")"
			}
			l.errorf(im.Pos, "%s", msg)
			continue
		}
		data, err := ReadSource(l.ctx, target, l.opts.MaxFileSize)
		if err != nil {
			if errors.Is(err, l.ctx.Err()) {
				l.err = err
				return
			}
			l.errorf(im.Pos, "cannot import %s: %s", excerpt(im.Path, maxPathExcerpt), l.readError(err))
			continue
		}
		if strings.HasSuffix(target, ".dl") {
			l.loadDL(target, string(data))
			continue
		}
		l.seen[ta] = true
		l.rank[target] = len(l.rank)
		facts, err := parseTriples(l.ctx, target, data)
		if errors.Is(err, l.ctx.Err()) && err != nil {
			l.err = err
			return
		}
		l.prog.Facts = append(l.prog.Facts, facts...)
		if ds, ok := err.(datalog.Diagnostics); ok {
			if len(ds) > maxTripleErrors {
				more := datalog.Diagnostic{Pos: ds[maxTripleErrors].Pos, Severity: datalog.Error,
					Msg: fmt.Sprintf("and %d more errors in this file, not shown", len(ds)-maxTripleErrors)}
				ds = append(ds[:maxTripleErrors], more)
			}
			l.ds = append(l.ds, ds...)
		}
	}
}

func (l *loader) onStack(abs string) int {
	for i, p := range l.stack {
		if realPath(absPath(p)) == abs {
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
	return parseTriples(context.Background(), filename, data)
}

// parseTriples is ParseTriples that stops with ctx's error, looking at ctx
// every ctxEvery lines.
func parseTriples(ctx context.Context, filename string, data []byte) ([]datalog.Fact, error) {
	var facts []datalog.Fact
	var ds datalog.Diagnostics
	n := 0
	for t, err := range tsv.Parse(filename, string(data)) {
		if n++; n%ctxEvery == 0 && ctx.Err() != nil {
			return facts, ctx.Err()
		}
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
