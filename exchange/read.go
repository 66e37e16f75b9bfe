package exchange

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// Report says what reading a rule file converted and what it left out.
type Report struct {
	// Lines is the number of rule lines read.
	Lines int
	// Rules is the number of rules converted.
	Rules int
	// ZeroBody counts the zero-body rules (AnyBURL's `r(X,c) <= `): they
	// are not rules in Datalog; their relations, PriorRelations, rank by
	// the slot prior instead (see the package documentation).
	ZeroBody       int
	PriorRelations []string
	// NoWeight counts the rules left out because their weight is 0 (no
	// correct prediction).
	NoWeight int
	// Duplicates counts the rules read a second time (the first is kept).
	Duplicates int
}

// Result is a rule file read into the dialect.
type Result struct {
	// Program holds the rules, in file order, each with its position in
	// the file and a comment with its counts ("from anyburl support=N
	// body=M conf=C", as drumql mine writes them), and the prior
	// directives of the relations that had zero-body rules.
	Program *datalog.Program
	Report  Report
}

// collector gathers the rules of a file and its errors.
type collector struct {
	file  string
	res   Result
	errs  Errors
	seen  map[string]bool
	heads map[string]bool // head relations of the rules and of the priors
	prior map[string]bool // relations with zero-body rules
}

func newCollector(file string) *collector {
	return &collector{file: file, res: Result{Program: &datalog.Program{}},
		seen: map[string]bool{}, heads: map[string]bool{}, prior: map[string]bool{}}
}

// errorf records an error at line, column col (0: the whole line).
func (c *collector) errorf(line, col int, msg string) {
	c.errs.add(&LineError{File: c.file, Line: line, Col: col, Reason: msg})
}

// add records a converted rule: one with weight 0 is counted and left out,
// a second copy of a rule (the same Key) too.
func (c *collector) add(r datalog.Rule) {
	if r.Weight <= 0 {
		c.res.Report.NoWeight++
		return
	}
	anonymize(&r)
	k := r.Key()
	if c.seen[k] {
		c.res.Report.Duplicates++
		return
	}
	c.seen[k] = true
	c.heads[r.Head.Pred] = true
	c.res.Program.Rules = append(c.res.Program.Rules, r)
	c.res.Report.Rules++
}

// addPrior records a zero-body rule of relation rel.
func (c *collector) addPrior(rel string) {
	c.res.Report.ZeroBody++
	c.prior[rel] = true
	c.heads[rel] = true
}

// finish returns the result, or the errors. A relation with zero-body
// rules gets `@aggregate max(prior = 1) for rel.`; when every relation of
// the file has them, one directive for the whole file says it.
func (c *collector) finish() (*Result, error) {
	if err := c.errs.err(); err != nil {
		return nil, err
	}
	rels := make([]string, 0, len(c.prior))
	for r := range c.prior {
		rels = append(rels, r)
	}
	slices.Sort(rels)
	c.res.Report.PriorRelations = rels
	prior := []datalog.Param{{Name: "prior", Value: 1}}
	if len(rels) > 0 && len(rels) == len(c.heads) {
		c.res.Program.Aggregates = []datalog.Aggregate{{Method: "max", Params: prior}}
	} else {
		for _, r := range rels {
			c.res.Program.Aggregates = append(c.res.Program.Aggregates,
				datalog.Aggregate{Method: "max", Params: prior, Pred: r})
		}
	}
	return &c.res, nil
}

// anonymize writes `_` for the variables of r's body atoms that occur
// once in the rule (AnyBURL's dangling variable, `r(X,c) <= b(X,A)`), as
// the dialect wants them.
func anonymize(r *datalog.Rule) {
	n := map[string]int{}
	count := func(t datalog.Term) {
		if t.Kind == datalog.Var {
			n[t.Value]++
		}
	}
	for _, t := range r.Head.Args {
		count(t)
	}
	for _, l := range r.Body {
		for _, t := range l.Atom.Args {
			count(t)
		}
		count(l.Left)
		count(l.Right)
	}
	for i := range r.Body {
		args := r.Body[i].Atom.Args
		for j, t := range args {
			if t.Kind == datalog.Var && n[t.Value] == 1 {
				args[j] = variable("_")
			}
		}
	}
}

// checkSafe reports the first variable of the head, then of a comparison,
// that no body atom binds, and says where it is ("head" or "inequality").
func checkSafe(r *datalog.Rule) (v, where string, ok bool) {
	bound := map[string]bool{}
	for _, l := range r.Body {
		if l.Kind == datalog.Positive {
			for _, t := range l.Atom.Args {
				if t.Kind == datalog.Var {
					bound[t.Value] = true
				}
			}
		}
	}
	for _, t := range r.Head.Args {
		if t.Kind == datalog.Var && !bound[t.Value] {
			return t.Value, "head", false
		}
	}
	for _, l := range r.Body {
		for _, t := range []datalog.Term{l.Left, l.Right} {
			if l.Kind == datalog.Comparison && t.Kind == datalog.Var && !bound[t.Value] {
				return t.Value, "inequality", false
			}
		}
	}
	return "", "", true
}

// eachLine calls fn with every line of r (1-based number, without its line
// ending and, on the first line, a UTF-8 byte order mark); it stops at the
// first error fn returns.
func eachLine(r io.Reader, fn func(n int, line string) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if line == "" && err != nil {
			return nil
		}
		line = strings.TrimRight(line, "\r\n")
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		if ferr := fn(n, line); ferr != nil {
			return ferr
		}
		if err != nil {
			return nil
		}
	}
}

// field is one whitespace-separated token of a line and its byte offset.
type field struct {
	text string
	off  int
}

// fields splits s at runs of spaces and tabs, keeping offsets (from base).
func fields(s string, base int) []field {
	var fs []field
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' || s[i] == '\t' {
			if start >= 0 {
				fs = append(fs, field{s[start:i], base + start})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	return fs
}

// variable returns a variable term.
func variable(name string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: name} }

// symbol returns a symbol constant: an entity or value name, never a
// number (a name such as "01698271" is the entity of that name).
func symbol(name string) datalog.Term { return datalog.Term{Kind: datalog.Symbol, Value: name} }

// atomLit is a positive body literal.
func atomLit(a datalog.Atom) datalog.Literal { return datalog.Literal{Kind: datalog.Positive, Atom: a} }

// neq is the comparison a != b.
func neq(a, b datalog.Term) datalog.Literal {
	return datalog.Literal{Kind: datalog.Comparison, Op: datalog.OpNe, Left: a, Right: b}
}
