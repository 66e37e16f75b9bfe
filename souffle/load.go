package souffle

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/parser"
)

// IsSouffle reports whether a file is a Soufflé file: its name ends in
// .souffle, or it has a line `@dialect souffle` or a line that starts
// with one of Soufflé's directives (.decl, .type, .comp, .init, .input,
// .output, .printsize, .functor, .pragma), which drumql's dialect has
// none of.
func IsSouffle(path string, src []byte) bool {
	return strings.HasSuffix(path, ".souffle") || soufflePattern.Match(src)
}

var soufflePattern = regexp.MustCompile(`(?m)^\s*(\.(decl|type|comp|init|input|output|printsize|functor|pragma)\b|@dialect\s+souffle\b)`)

// Read reads the Soufflé program of file path, whose text is src: its
// declarations, directives and clauses (as drumql's Datalog, positions
// those of the Soufflé source). An error is an *Error or the parser's
// datalog.Diagnostics.
func Read(path string, src []byte) (*Program, *datalog.Program, error) {
	text := soufflePrefix.ReplaceAllString(string(src), "")
	pre, drumqlFiles, err := preprocess(path, text)
	if err != nil {
		return nil, nil, err
	}
	ts, err := lex(pre.lines, pre.where)
	if err != nil {
		return nil, nil, err
	}
	if ts, err = expandComponents(ts); err != nil {
		return nil, nil, err
	}
	p, err := read(ts)
	if err != nil {
		return nil, nil, err
	}
	prog, err := parser.ParseString(path, p.Text)
	var ds datalog.Diagnostics
	if errors.As(err, &ds) {
		for i := range ds {
			ds[i].Pos = p.origin(ds[i].Pos)
		}
		ds.Sort()
		return nil, nil, ds
	}
	if err != nil {
		return nil, nil, err
	}
	p.remap(prog)
	prog.Facts = append(prog.Facts, p.rangeFacts...)
	if err := p.check(prog); err != nil {
		return nil, nil, err
	}
	if err := p.subsume(prog); err != nil {
		return nil, nil, err
	}
	p.rangeRules(prog)
	for _, f := range drumqlFiles {
		if err := p.merge(prog, f); err != nil {
			return nil, nil, err
		}
	}
	p.eqrels(prog)
	return p, prog, nil
}

// soufflePrefix is the `@dialect souffle` line, which Soufflé's own
// preprocessor would not take.
var soufflePrefix = regexp.MustCompile(`(?m)^\s*@dialect\s+souffle\s*\.?\s*$`)

// origin returns the Soufflé source position of position p of Text.
func (p *Program) origin(at datalog.Pos) datalog.Pos {
	if at.Line < 1 || at.Line > len(p.lines) {
		return at
	}
	spans := p.lines[at.Line-1]
	best := -1
	for i, s := range spans {
		if s.col <= at.Col {
			best = i
		}
	}
	if best < 0 {
		return at
	}
	s := spans[best]
	return datalog.Pos{File: s.at.file, Line: s.at.line, Col: s.at.col + at.Col - s.col}
}

// remap gives the parts of prog the positions of the Soufflé source.
func (p *Program) remap(prog *datalog.Program) {
	var term func(t *datalog.Term)
	var lits func(ls []datalog.Literal)
	atom := func(a *datalog.Atom) {
		a.Pos = p.origin(a.Pos)
		for i := range a.Args {
			term(&a.Args[i])
		}
	}
	term = func(t *datalog.Term) {
		t.Pos = p.origin(t.Pos)
		if t.Kind == datalog.Compound {
			for i := range t.X.Args {
				term(&t.X.Args[i])
			}
			lits(t.X.Body)
		}
	}
	lits = func(ls []datalog.Literal) {
		for i := range ls {
			l := &ls[i]
			l.Pos = p.origin(l.Pos)
			atom(&l.Atom)
			term(&l.Left)
			term(&l.Right)
		}
	}
	for i := range prog.Facts {
		prog.Facts[i].Pos = p.origin(prog.Facts[i].Pos)
		atom(&prog.Facts[i].Atom)
	}
	for i := range prog.Rules {
		r := &prog.Rules[i]
		r.Pos = p.origin(r.Pos)
		atom(&r.Head)
		lits(r.Body)
	}
}

// check checks that every relation a clause uses is declared, with its
// arity.
func (p *Program) check(prog *datalog.Program) error {
	seen := func(a datalog.Atom) error {
		d, ok := p.Decls[a.Pred]
		switch {
		case !ok:
			return errAt(pos{a.Pos.File, a.Pos.Line, a.Pos.Col}, "relation %s is not declared (.decl %s(...))", a.Pred, a.Pred)
		case len(d.Cols) != len(a.Args):
			return errAt(pos{a.Pos.File, a.Pos.Line, a.Pos.Col}, "relation %s has %d attributes (%s), not %d", a.Pred, len(d.Cols), d.At, len(a.Args))
		}
		return nil
	}
	for _, f := range prog.Facts {
		if err := seen(f.Atom); err != nil {
			return err
		}
	}
	projections := map[string]bool{}
	for i, n := 0, len(prog.Rules); i < n; i++ {
		r := &prog.Rules[i]
		if err := seen(r.Head); err != nil {
			return err
		}
		if err := p.groundWitnesses(r); err != nil {
			return err
		}
		var err error
		r.BodyAtoms(func(l *datalog.Literal, _ bool) {
			if err == nil {
				err = seen(l.Atom)
			}
		})
		if err != nil {
			return err
		}
		// (r's aggregates are behind pointers, unmoved when prog.Rules grows)
		projectAggregates(r, prog, projections)
	}
	for _, list := range [][]IO{p.Inputs, p.Outputs, p.PrintSizes, p.Limits} {
		for _, io := range list {
			if _, ok := p.Decls[io.Rel]; !ok {
				return errAt(io.At, "relation %s is not declared", io.Rel)
			}
		}
	}
	return nil
}

// eqrels adds the rules of each equivalence relation: reflexive on the
// values it relates, symmetric and transitive.
func (p *Program) eqrels(prog *datalog.Program) {
	for _, name := range p.Order {
		d := p.Decls[name]
		if !d.Eqrel || len(d.Cols) != 2 {
			continue
		}
		at := datalog.Pos{File: d.At.file, Line: d.At.line, Col: d.At.col}
		v := func(n string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: n, Pos: at} }
		a := func(x, y string) datalog.Atom {
			return datalog.Atom{Pred: name, Args: []datalog.Term{v(x), v(y)}, Pos: at}
		}
		lit := func(x, y string) datalog.Literal {
			return datalog.Literal{Kind: datalog.Positive, Atom: a(x, y), Pos: at}
		}
		prog.Rules = append(prog.Rules,
			datalog.Rule{Weight: 1, Head: a("X", "X"), Body: []datalog.Literal{lit("X", "_")}, Pos: at},
			datalog.Rule{Weight: 1, Head: a("X", "X"), Body: []datalog.Literal{lit("_", "X")}, Pos: at},
			datalog.Rule{Weight: 1, Head: a("Y", "X"), Body: []datalog.Literal{lit("X", "Y")}, Pos: at},
			datalog.Rule{Weight: 1, Head: a("X", "Z"), Body: []datalog.Literal{lit("X", "Y"), lit("Y", "Z")}, Pos: at})
	}
}

// factPath returns the file of an .input or .output directive: its
// filename parameter (relative to dir) or REL.ext in dir.
func factPath(io IO, dir, ext string) string {
	name := io.Params["filename"]
	if name == "" {
		name = io.Rel + ext
	}
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

// readSource reads a program file.
func readSource(path string) ([]byte, error) {
	return os.ReadFile(path)
}

// merge adds the facts and rules of a file of drumql's dialect that the
// program includes: relations are shared by name, and one the program
// declares must have its arity there.
func (p *Program) merge(prog *datalog.Program, path string) error {
	q, err := parser.ParseFile(path)
	if err != nil {
		return err
	}
	arity := func(a datalog.Atom) error {
		if d, ok := p.Decls[a.Pred]; ok && len(d.Cols) != len(a.Args) {
			return errAt(pos{a.Pos.File, a.Pos.Line, a.Pos.Col}, "relation %s has %d attributes (%s), not %d", a.Pred, len(d.Cols), d.At, len(a.Args))
		}
		return nil
	}
	for _, f := range q.Facts {
		if err := arity(f.Atom); err != nil {
			return err
		}
	}
	for i := range q.Rules {
		r := &q.Rules[i]
		err := arity(r.Head)
		r.BodyAtoms(func(l *datalog.Literal, _ bool) {
			if err == nil {
				err = arity(l.Atom)
			}
		})
		if err != nil {
			return err
		}
	}
	prog.Facts = append(prog.Facts, q.Facts...)
	prog.Rules = append(prog.Rules, q.Rules...)
	prog.Thresholds = append(prog.Thresholds, q.Thresholds...)
	return nil
}
