package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/drumql/drumql/internal/lineerr"
	"github.com/drumql/drumql/internal/tsv"
)

// LineError is one malformed input line. The importer sets no Col: its
// Error is "file:line: reason".
type LineError = lineerr.Error

// LoadError is every malformed line of an import, in file and line order.
// A reader that returns a LoadError returns no batch: nothing is loaded.
type LoadError struct {
	Errs []LineError
}

// maxShownErrors is how many lines LoadError.Error prints.
const maxShownErrors = 20

// Error prints up to 20 errors, one a line, then how many more there are.
func (e *LoadError) Error() string {
	var sb strings.Builder
	for i, le := range e.Errs {
		if i == maxShownErrors {
			fmt.Fprintf(&sb, "\n... and %d more errors", len(e.Errs)-maxShownErrors)
			break
		}
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(le.Error())
	}
	return sb.String()
}

// Unwrap returns the line errors, for errors.Is and errors.As.
func (e *LoadError) Unwrap() []error {
	errs := make([]error, len(e.Errs))
	for i, le := range e.Errs {
		errs[i] = le
	}
	return errs
}

// collector gathers line errors across files.
type collector struct{ errs []LineError }

func (c *collector) add(file string, line int, format string, args ...any) {
	c.errs = append(c.errs, LineError{File: file, Line: line, Reason: fmt.Sprintf(format, args...)})
}

func (c *collector) err() error {
	if len(c.errs) == 0 {
		return nil
	}
	return &LoadError{Errs: c.errs}
}

// eachLine calls fn with every non-blank line of r, as tsv.Lines yields
// them. The input is read whole: every text passed to fn is a substring of
// one string, so keeping them costs no allocation per line.
func eachLine(r io.Reader, fn func(line int, text string)) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	for n, text := range tsv.Lines(string(data)) {
		fn(n, text)
	}
	return nil
}

func readFileLines(path string, fn func(line int, text string)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for n, text := range tsv.Lines(string(data)) {
		fn(n, text)
	}
	return nil
}

// parseTSVString parses head<TAB>relation<TAB>tail lines with tsv.Parse;
// the names are substrings of s.
func parseTSVString(s, name string, c *collector) []NamedTriple {
	ts := make([]NamedTriple, 0, strings.Count(s, "\n")+1)
	for t, err := range tsv.Parse(name, s) {
		if err != nil {
			e := err.(*tsv.Error) // tsv.Parse yields no other error
			c.errs = append(c.errs, LineError{File: e.File, Line: e.Line, Reason: e.Reason})
			continue
		}
		if n := max(len(t.Head), len(t.Relation), len(t.Tail)); n > MaxNameLen {
			c.errs = append(c.errs, LineError{File: name, Line: t.Line, Reason: longName(n)})
			continue
		}
		ts = append(ts, NamedTriple{S: t.Head, R: t.Relation, O: t.Tail})
	}
	return ts
}

// longName is the reason given for a name of n bytes over MaxNameLen.
func longName(n int) string {
	return fmt.Sprintf("a name of %d bytes, longer than the limit of %d", n, MaxNameLen)
}

func readTSVFile(path string, c *collector) ([]NamedTriple, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseTSVString(string(data), path, c), nil
}

// ReadTSV reads a file of head<TAB>relation<TAB>tail lines into a batch of
// graph triples. Malformed lines are reported together as a *LoadError.
func ReadTSV(path string) (*Batch, error) {
	var c collector
	ts, err := readTSVFile(path, &c)
	if err != nil {
		return nil, wrapf("store: read %s: %w", path, err)
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	return &Batch{Graph: ts}, nil
}

// ReadDataset reads a DRUM / Neural LP dataset folder: facts.txt and
// train.txt (the graph; at least one of them must exist), valid.txt and
// test.txt, each kept as a split of the same name in file order, and the
// optional entities.txt and relations.txt, whose names are interned in
// order. Malformed lines of every file are reported together as a
// *LoadError.
func ReadDataset(dir string) (*Batch, error) {
	var c collector
	b := &Batch{Splits: make(map[string][]NamedTriple)}
	for _, list := range []string{"entities.txt", "relations.txt"} {
		path := filepath.Join(dir, list)
		err := readFileLines(path, func(line int, text string) {
			switch {
			case !utf8.ValidString(text):
				c.add(path, line, "invalid UTF-8")
			case strings.Contains(text, "\t"):
				c.add(path, line, "want one name a line, got a tab")
			case len(text) > MaxNameLen:
				c.add(path, line, "%s", longName(len(text)))
			default:
				b.Symbols = append(b.Symbols, text)
			}
		})
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, wrapf("store: read dataset %s: %w", dir, err)
		}
	}
	graphFiles := 0
	for _, split := range []string{"facts", "train", "valid", "test"} {
		ts, err := readTSVFile(filepath.Join(dir, split+".txt"), &c)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, wrapf("store: read dataset %s: %w", dir, err)
		}
		b.Splits[split] = ts
		if split == "facts" || split == "train" {
			graphFiles++
		}
	}
	b.Graph = make([]NamedTriple, 0, len(b.Splits["facts"])+len(b.Splits["train"]))
	b.Graph = append(append(b.Graph, b.Splits["facts"]...), b.Splits["train"]...)
	if graphFiles == 0 {
		return nil, wrapf("store: read dataset %s: neither facts.txt nor train.txt: %w", dir, os.ErrNotExist)
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	return b, nil
}

// ReadNTriples reads an N-Triples file into a batch of graph triples. IRIs
// lose their angle brackets, blank nodes keep their _: label, and literals
// become their unescaped lexical form ("chat"@fr becomes chat@fr; a datatype
// is dropped). Comment lines (#) are skipped. Malformed lines are reported
// together as a *LoadError.
func ReadNTriples(path string) (*Batch, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, wrapf("store: read %s: %w", path, err)
	}
	defer f.Close()
	return readNTriples(f, path)
}

func readNTriples(r io.Reader, name string) (*Batch, error) {
	var c collector
	var ts []NamedTriple
	err := eachLine(r, func(line int, text string) {
		if !utf8.ValidString(text) {
			c.add(name, line, "invalid UTF-8")
			return
		}
		t, ok, err := parseNTLine(text)
		if err != nil {
			c.add(name, line, "%v", err)
		} else if n := max(len(t.S), len(t.R), len(t.O)); ok && n > MaxNameLen {
			c.add(name, line, "%s", longName(n))
		} else if ok {
			ts = append(ts, t)
		}
	})
	if err != nil {
		return nil, wrapf("store: read %s: %w", name, err)
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	return &Batch{Graph: ts}, nil
}

// ReadTriples reads the triples of one file's contents from r, as ReadPath
// reads the file: N-Triples when name ends in .nt, TSV otherwise. name is
// used for that choice and in the errors only: no file is opened.
func ReadTriples(name string, r io.Reader) (*Batch, error) {
	if strings.EqualFold(filepath.Ext(name), ".nt") {
		return readNTriples(r, name)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, wrapf("store: read %s: %w", name, err)
	}
	var c collector
	ts := parseTSVString(string(data), name, &c)
	if err := c.err(); err != nil {
		return nil, err
	}
	return &Batch{Graph: ts}, nil
}

// ReadPath reads a dataset directory (ReadDataset), an .nt file
// (ReadNTriples) or anything else as TSV (ReadTSV).
func ReadPath(path string) (*Batch, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, wrapf("store: read %s: %w", path, err)
	}
	switch {
	case fi.IsDir():
		return ReadDataset(path)
	case strings.EqualFold(filepath.Ext(path), ".nt"):
		return ReadNTriples(path)
	default:
		return ReadTSV(path)
	}
}

// ntScanner parses the terms of one N-Triples line.
type ntScanner struct {
	s   string
	pos int
}

func (p *ntScanner) skipSpace() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

// parseNTLine parses one line; ok is false for a comment line.
func parseNTLine(line string) (NamedTriple, bool, error) {
	p := &ntScanner{s: line}
	p.skipSpace()
	if p.pos < len(line) && line[p.pos] == '#' {
		return NamedTriple{}, false, nil
	}
	var terms [3]string
	for i, what := range [3]string{"subject", "predicate", "object"} {
		p.skipSpace()
		if p.pos >= len(line) || line[p.pos] == '.' && i > 0 && p.pos == len(line)-1 {
			return NamedTriple{}, false, fmt.Errorf("missing %s", what)
		}
		var err error
		switch c := line[p.pos]; {
		case c == '<':
			terms[i], err = p.iri()
		case c == '_' && i != 1:
			terms[i], err = p.blank()
		case c == '"' && i == 2:
			terms[i], err = p.literal()
		default:
			err = fmt.Errorf("bad %s at column %d: want <IRI>%s", what, p.pos+1,
				map[int]string{0: " or _:blank", 1: "", 2: ", _:blank or \"literal\""}[i])
		}
		if err != nil {
			return NamedTriple{}, false, err
		}
	}
	p.skipSpace()
	if p.pos >= len(line) || line[p.pos] != '.' {
		return NamedTriple{}, false, fmt.Errorf("missing final '.' at column %d", p.pos+1)
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(line) && line[p.pos] != '#' {
		return NamedTriple{}, false, fmt.Errorf("unexpected text after '.' at column %d", p.pos+1)
	}
	return NamedTriple{S: terms[0], R: terms[1], O: terms[2]}, true, nil
}

func (p *ntScanner) iri() (string, error) {
	start := p.pos
	p.pos++ // <
	var sb strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == '>':
			p.pos++
			if sb.Len() == 0 {
				return "", fmt.Errorf("empty IRI at column %d", start+1)
			}
			return sb.String(), nil
		case c == '\\':
			r, err := p.uchar()
			if err != nil {
				return "", err
			}
			sb.WriteRune(r)
		case c <= ' ' || strings.IndexByte("<\"{}|^`", c) >= 0:
			return "", fmt.Errorf("character %q not allowed in IRI at column %d", c, p.pos+1)
		default:
			sb.WriteByte(c)
			p.pos++
		}
	}
	return "", fmt.Errorf("unterminated IRI starting at column %d", start+1)
}

func (p *ntScanner) blank() (string, error) {
	start := p.pos
	if !strings.HasPrefix(p.s[p.pos:], "_:") {
		return "", fmt.Errorf("bad blank node at column %d", start+1)
	}
	p.pos += 2
	for p.pos < len(p.s) && p.s[p.pos] != ' ' && p.s[p.pos] != '\t' {
		p.pos++
	}
	label := strings.TrimSuffix(p.s[start:p.pos], ".")
	if label != p.s[start:p.pos] && p.pos == len(p.s) {
		p.pos-- // "_:b." at end of line: the dot ends the statement
	}
	if len(label) == 2 {
		return "", fmt.Errorf("empty blank node label at column %d", start+1)
	}
	return label, nil
}

func (p *ntScanner) literal() (string, error) {
	start := p.pos
	p.pos++ // "
	var sb strings.Builder
	for {
		if p.pos >= len(p.s) {
			return "", fmt.Errorf("unterminated literal starting at column %d", start+1)
		}
		c := p.s[p.pos]
		if c == '"' {
			p.pos++
			break
		}
		if c != '\\' {
			sb.WriteByte(c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.s) {
			return "", fmt.Errorf("unterminated escape at column %d", p.pos+1)
		}
		switch e := p.s[p.pos+1]; e {
		case 't', 'b', 'n', 'r', 'f', '"', '\'', '\\':
			sb.WriteByte(map[byte]byte{'t': '\t', 'b': '\b', 'n': '\n', 'r': '\r', 'f': '\f', '"': '"', '\'': '\'', '\\': '\\'}[e])
			p.pos += 2
		case 'u', 'U':
			r, err := p.uchar()
			if err != nil {
				return "", err
			}
			sb.WriteRune(r)
		default:
			return "", fmt.Errorf("bad escape \\%c at column %d", e, p.pos+1)
		}
	}
	switch {
	case strings.HasPrefix(p.s[p.pos:], "^^"):
		p.pos += 2
		if p.pos >= len(p.s) || p.s[p.pos] != '<' {
			return "", fmt.Errorf("want <datatype IRI> after ^^ at column %d", p.pos+1)
		}
		if _, err := p.iri(); err != nil {
			return "", err
		}
	case p.pos < len(p.s) && p.s[p.pos] == '@':
		ls := p.pos
		p.pos++
		for p.pos < len(p.s) && (isAlnum(p.s[p.pos]) || p.s[p.pos] == '-') {
			p.pos++
		}
		if p.pos == ls+1 {
			return "", fmt.Errorf("empty language tag at column %d", ls+1)
		}
		sb.WriteString(p.s[ls:p.pos])
	}
	if sb.Len() == 0 {
		return "", fmt.Errorf("empty literal at column %d", start+1)
	}
	return sb.String(), nil
}

// uchar decodes \uXXXX or \UXXXXXXXX at p.pos.
func (p *ntScanner) uchar() (rune, error) {
	at := p.pos + 1
	if p.pos+1 >= len(p.s) {
		return 0, fmt.Errorf("unterminated escape at column %d", at)
	}
	n := 0
	switch p.s[p.pos+1] {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, fmt.Errorf("bad escape \\%c at column %d", p.s[p.pos+1], at)
	}
	if p.pos+2+n > len(p.s) {
		return 0, fmt.Errorf("short \\%c escape at column %d", p.s[p.pos+1], at)
	}
	v, err := strconv.ParseUint(p.s[p.pos+2:p.pos+2+n], 16, 32)
	if err != nil || !utf8.ValidRune(rune(v)) {
		return 0, fmt.Errorf("bad \\%c escape at column %d", p.s[p.pos+1], at)
	}
	p.pos += 2 + n
	return rune(v), nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
