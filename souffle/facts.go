package souffle

import (
	"bufio"
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
	"github.com/drumql/drumql/store"
)

// readInputs reads the file of every .input directive into a batch of
// base facts: streamed line by line, each field read as its column's type
// (a number in a number column, canonically: 007 is 7).
func (p *Program) readInputs(ctx context.Context, factDir string) (*store.Batch, error) {
	b := &store.Batch{}
	for _, in := range p.Inputs {
		if io := in.Params["IO"]; io != "" && io != "file" {
			return nil, errAt(in.At, "unsupported: .input with IO=%s (IO=file only)", io)
		}
		path := factPath(in, factDir, ".facts")
		if err := p.readFacts(ctx, in, path, b); err != nil {
			return nil, err
		}
	}
	b.Facts = p.chooseInputs(b.Facts)
	return b, nil
}

// chooseInputs keeps, of the input facts of a relation with a choice
// domain, those Soufflé's insertion keeps: in the order read, a fact whose
// values at one of the relation's keys a fact kept before has are left
// out.
func (p *Program) chooseInputs(facts []store.NamedFact) []store.NamedFact {
	taken := map[string]bool{} // relation, key index and key values of the facts kept
	var key strings.Builder
	return slices.DeleteFunc(facts, func(f store.NamedFact) bool {
		d := p.Decls[f.Rel]
		if d == nil || len(d.Choice) == 0 {
			return false
		}
		keys := make([]string, len(d.Choice))
		for i, k := range d.Choice {
			key.Reset()
			fmt.Fprintf(&key, "%s\x00%d", f.Rel, i)
			for _, pos := range k {
				key.WriteByte(0)
				key.WriteString(f.Args[pos])
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
	})
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

func (p *Program) readFacts(ctx context.Context, in IO, path string, b *store.Batch) error {
	f, err := openInput(in, path)
	if err != nil {
		return err
	}
	defer f.Close()
	d := p.Decls[in.Rel]
	delim := "\t"
	if v, ok := in.Params["delimiter"]; ok && v != "" {
		delim = v
	}
	headers := in.Params["headers"] == "true"
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		text := strings.TrimSuffix(sc.Text(), "\r")
		if headers && line == 1 {
			continue
		}
		if text == "" && len(d.Cols) > 0 {
			continue
		}
		args := make([]string, 0, len(d.Cols))
		if len(d.Cols) > 0 {
			args = strings.Split(text, delim)
		}
		if len(args) != len(d.Cols) {
			return &Error{At: fmt.Sprintf("%s:%d:1", path, line),
				Msg: fmt.Sprintf("%d fields, but %s has %d attributes (delimiter %q)", len(args), in.Rel, len(d.Cols), delim)}
		}
		col := 1
		for i, a := range args {
			v, err := p.value(d.Cols[i], a)
			if err != nil {
				return &Error{At: fmt.Sprintf("%s:%d:%d", path, line, col), Msg: err.Error()}
			}
			args[i] = v
			col += len(a) + len(delim)
		}
		b.Facts = append(b.Facts, store.NamedFact{Rel: in.Rel, Args: args})
	}
	if err := sc.Err(); err != nil {
		return &Error{At: fmt.Sprintf("%s:%d:1", path, line+1), Msg: err.Error()}
	}
	return nil
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
