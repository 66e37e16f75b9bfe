package souffle

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// readInputs reads the file of every .input directive into the facts of
// an evaluation: streamed line by line, each field read as its column's
// type (a number in a number column, canonically: 007 is 7) and interned.
// Of the facts of a relation with a choice domain, those Soufflé's
// insertion keeps are kept: in the order read, a fact whose values at one
// of the relation's keys a fact kept before has is left out.
func (p *Program) readInputs(ctx context.Context, factDir string) (*inputs, error) {
	in := newInputs()
	taken := map[string]bool{} // relation, key index and key values of the facts kept
	for _, src := range p.Inputs {
		if v := src.Params["IO"]; v != "" && v != "file" {
			return nil, errAt(src.At, "unsupported: .input with IO=%s (IO=file only)", v)
		}
		path := factPath(src, factDir, ".facts")
		if err := p.readFacts(ctx, src, path, in, taken); err != nil {
			return nil, err
		}
	}
	in.seal()
	return in, nil
}

// chosen reports whether the fact of values vals of relation rel
// (declared by d) is left out by its choice domain (see readInputs), and
// marks its keys taken when it is kept.
func chosen(rel string, d *Decl, vals [][]byte, taken map[string]bool) bool {
	keys := make([]string, len(d.Choice))
	var key strings.Builder
	for i, k := range d.Choice {
		key.Reset()
		fmt.Fprintf(&key, "%s\x00%d", rel, i)
		for _, pos := range k {
			key.WriteByte(0)
			key.Write(vals[pos])
		}
		keys[i] = key.String()
		if taken[keys[i]] {
			return true
		}
	}
	for _, k := range keys {
		taken[k] = true
	}
	return false
}

// openInput opens an input file, refusing what is not a regular file;
// a name ending in .gz is read through gzip.
func openInput(in IO, path string) (io.ReadCloser, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, errAt(in.At, ".input %s: cannot read %s: %v", in.Rel, path, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		what := "not a regular file"
		switch {
		case fi.IsDir():
			what = "a directory"
		case fi.Mode()&fs.ModeNamedPipe != 0:
			what = "a FIFO"
		}
		return nil, errAt(in.At, ".input %s: cannot read %s: it is %s", in.Rel, path, what)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, errAt(in.At, ".input %s: cannot read %s: %v", in.Rel, path, unwrapPath(err))
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, nil
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, errAt(in.At, ".input %s: %s: %v", in.Rel, path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{z, f}, nil
}

// unwrapPath drops the path and operation of a *fs.PathError (the message
// names the path already).
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// readFacts reads the facts of one .input file into in.
func (p *Program) readFacts(ctx context.Context, src IO, path string, in *inputs, taken map[string]bool) error {
	f, err := openInput(src, path)
	if err != nil {
		return err
	}
	defer f.Close()
	d := p.Decls[src.Rel]
	delim := "\t"
	if v, ok := src.Params["delimiter"]; ok && v != "" {
		delim = v
	}
	kinds := make([]string, len(d.Cols))
	for i, c := range d.Cols {
		kinds[i] = p.kind(c.Type)
	}
	headers := src.Params["headers"] == "true"
	br := bufio.NewReaderSize(f, 64<<10)
	lines := estimateLines(br, path)
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	var rel *inputRel
	fields := make([][]byte, 0, len(d.Cols))
	vals := make([][]byte, len(d.Cols))
	natural := make([]bool, len(d.Cols)) // vals[i] is canonicalDigits
	line := 0
	for sc.Scan() {
		line++
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		text := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if headers && line == 1 {
			continue
		}
		if len(text) == 0 && len(d.Cols) > 0 {
			continue
		}
		fields = fields[:0]
		if len(d.Cols) > 0 {
			fields = splitFields(fields, text, delim)
		}
		if len(fields) != len(d.Cols) {
			return &Error{At: fmt.Sprintf("%s:%d:1", path, line),
				Msg: fmt.Sprintf("%d fields, but %s has %d attributes (delimiter %q)", len(fields), src.Rel, len(d.Cols), delim)}
		}
		col := 1
		for i, a := range fields {
			v, nat, err := p.fieldValue(d.Cols[i], kinds[i], a)
			if err != nil {
				return &Error{At: fmt.Sprintf("%s:%d:%d", path, line, col), Msg: err.Error()}
			}
			vals[i], natural[i] = v, nat
			col += len(a) + len(delim)
		}
		if len(d.Choice) > 0 && chosen(src.Rel, d, vals, taken) {
			continue
		}
		if rel == nil {
			if rel, err = in.relation(src.Rel, len(d.Cols)); err != nil {
				return &Error{At: fmt.Sprintf("%s:%d:1", path, line), Msg: err.Error()}
			}
			rel.ids = slices.Grow(rel.ids, lines*len(d.Cols))
		}
		col = 1
		for i, v := range vals {
			intern := in.intern
			if natural[i] {
				intern = in.internNatural
			}
			id, err := intern(v)
			if err != nil {
				return &Error{At: fmt.Sprintf("%s:%d:%d", path, line, col), Msg: err.Error()}
			}
			rel.ids = append(rel.ids, id)
			col += len(fields[i]) + len(delim)
		}
		rel.n++
	}
	if err := sc.Err(); err != nil {
		return &Error{At: fmt.Sprintf("%s:%d:1", path, line+1), Msg: err.Error()}
	}
	return nil
}

// estimateLines returns about how many lines the file at path, read
// through br, has: its size times the lines per byte of its first 64 KiB
// (peeked, not read), a sixteenth more; 0 for a file read through gzip or
// of no size. readFacts sizes the relation's column with it, so that a
// large input is not copied by append's growth (a quarter at a time: the
// copies of a million edges' column came to five times its size).
func estimateLines(br *bufio.Reader, path string) int {
	fi, err := os.Stat(path)
	if err != nil || strings.HasSuffix(path, ".gz") || fi.Size() == 0 {
		return 0
	}
	head, _ := br.Peek(64 << 10)
	if len(head) == 0 {
		return 0
	}
	n := bytes.Count(head, []byte("\n"))
	if len(head) == int(fi.Size()) {
		return n + 1
	}
	est := int64(n+1) * fi.Size() / int64(len(head))
	// (a line of a fact holds a field and a newline at least)
	return int(min(est+est/16, fi.Size()/2, 1<<28))
}

// splitFields appends to dst the fields of text separated by delim.
func splitFields(dst [][]byte, text []byte, delim string) [][]byte {
	if len(delim) == 1 {
		for {
			i := bytes.IndexByte(text, delim[0])
			if i < 0 {
				return append(dst, text)
			}
			dst = append(dst, text[:i])
			text = text[i+1:]
		}
	}
	for {
		i := bytes.Index(text, []byte(delim))
		if i < 0 {
			return append(dst, text)
		}
		dst = append(dst, text[:i])
		text = text[i+len(delim):]
	}
}

// fieldValue reads field s of column c of kind kind (Program.kind) as
// value does: a symbol and a number written canonically (digits, without
// a leading 0: natural) are the field itself, the rest is value's.
func (p *Program) fieldValue(c Col, kind string, s []byte) (v []byte, natural bool, err error) {
	if kind == "number" || kind == "unsigned" {
		if canonicalDigits(s) {
			return s, true, nil
		}
	} else if kind == "symbol" {
		return s, false, nil
	}
	t, err := p.value(c, string(s))
	return []byte(t), false, err
}

// canonicalDigits reports whether s is a natural number as
// datalog.CanonicalNumber writes it: 0, or at most 18 digits not starting
// with 0.
func canonicalDigits(s []byte) bool {
	if len(s) == 0 || len(s) > 18 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for _, b := range s {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}

// value reads field s of column c.
func (p *Program) value(c Col, s string) (string, error) {
	switch p.kind(c.Type) {
	case "symbol":
		return s, nil
	case "record":
		v, err := p.readRecord(c.Type, s)
		if err != nil {
			return "", fmt.Errorf("%w (attribute %s: %s)", err, c.Name, c.Type)
		}
		return v, nil
	case "float":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return "", fmt.Errorf("%q is not a float (attribute %s: %s)", s, c.Name, c.Type)
		}
		v, _ := datalog.CanonicalNumber(strconv.FormatFloat(f, 'g', -1, 64))
		return v, nil
	}
	t := strings.TrimSpace(s)
	v, err := number(token{text: t})
	if err == nil {
		var ok bool
		if v, ok = datalog.CanonicalNumber(v); ok && !strings.ContainsAny(v, ".eE") {
			return v, nil
		}
	}
	return "", fmt.Errorf("%q is not an integer (attribute %s: %s)", s, c.Name, c.Type)
}
