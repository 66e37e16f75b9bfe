package souffle

import (
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
)

// Program is a Soufflé program read: its declarations, I/O directives and
// its clauses translated into drumql's dialect (Text, parsed by Load).
type Program struct {
	Decls map[string]*Decl
	Order []string // relation names in order of declaration
	Types map[string]string
	// Records are the record types, by name: their fields (none for an
	// algebraic data type, whose constructors are in ctors)
	Records map[string][]Col
	// ctors are the fields of the constructors of algebraic data types,
	// by name with its $
	ctors  map[string][]Col
	Inputs []IO
	// Outputs are the .output directives, PrintSizes the .printsize ones,
	// in source order.
	Outputs    []IO
	PrintSizes []IO
	// Limits are the .limitsize directives (their parameter n)
	Limits []IO
	// Text is the clauses in drumql's dialect, one a line; lines maps each
	// line of Text to the source positions of its tokens.
	Text  string
	lines [][]span
	// Magic is set by `.pragma "magic-transform"`: each output is then
	// evaluated goal-directed (from the constants of the rules that
	// define it), not the whole program.
	Magic   bool
	magicAt pos              // where the pragma is
	goal    *datalog.Program // the program queried for each output (Magic)
	// rangeFacts are the values of the ranges of the clauses (rangeop.go)
	rangeFacts []datalog.Fact
	// varRanges are the ranges with bounds that are not constants
	// (rangevar.go)
	varRanges []varRange
	// subsumed are the relations with subsumptions (subsume.go)
	subsumed []string
	// recursive are the subsumed relations that their rules read, each
	// with its domination rules' predicate (reasoner.Options.Subsume)
	recursive map[string]string
	// sourceNames are the variables of the clauses as the source names
	// them, by their names in Text (for messages)
	sourceNames map[string]string
	// counters is set when a clause calls autoinc()
	counters bool
}

// goalDirected reports whether the outputs are evaluated goal-directed
// (Magic): as Soufflé's magic-set transformation leaves alone the
// relations whose result depends on the order of evaluation, a program
// with a choice domain, a subsumption, a .limitsize or autoinc() is
// evaluated whole, pragma or not (the pragma changes no result).
func (p *Program) goalDirected() bool {
	return p.Magic && !p.counters && len(p.choices()) == 0 && len(p.subsumed) == 0 && len(p.Limits) == 0
}

// Decl is a `.decl`: a relation, its columns and whether it is an
// equivalence relation.
type Decl struct {
	Name  string
	Cols  []Col
	Eqrel bool
	At    pos
	// Choice are the keys of its choice domain (each a list of attribute
	// positions): a tuple is added only when no tuple has its key.
	Choice [][]int
}

// Col is one column of a declared relation: its name, its type as
// written and the primitive type it resolves to (symbol, number,
// unsigned or float).
type Col struct {
	Name, Type, Kind string
}

// IO is an `.input`, `.output` or `.printsize` directive: the relation
// and its parameters (IO, filename, delimiter, headers, ...).
type IO struct {
	Rel    string
	Params map[string]string
	At     pos
}

// span says that the text of a translated line from column col on comes
// from the source at at.
type span struct {
	col int
	at  pos
}

// reader reads the tokens of a preprocessed program.
type reader struct {
	ts  []token
	i   int
	p   *Program
	out strings.Builder
	col int // 1-based column of the next byte of the current line of out
	cur []span
	// declared are the names of the program's .decl directives
	declared map[string]bool
	// records counts the variables made for record patterns (record.go)
	nrec int
}

func (r *reader) peek() token { return r.ts[r.i] }
func (r *reader) next() token {
	t := r.ts[r.i]
	if t.kind != tEOF {
		r.i++
	}
	return t
}

func (r *reader) isPunct(s string) bool {
	t := r.peek()
	return t.kind == tPunct && t.text == s
}

func (r *reader) expect(s string) (token, error) {
	t := r.next()
	if t.kind != tPunct || t.text != s {
		return t, errAt(t.at, "expected %q, not %s", s, describe(t))
	}
	return t, nil
}

func describe(t token) string {
	if t.kind == tEOF {
		return "the end of the file"
	}
	return strconv.Quote(t.text)
}

// read reads a whole program.
func read(ts []token) (*Program, error) {
	r := &reader{ts: ts, p: &Program{Decls: map[string]*Decl{}, Types: map[string]string{}, Records: map[string][]Col{}, ctors: map[string][]Col{},
		sourceNames: map[string]string{}}}
	// the declared relations, wherever their .decl is
	r.declared = map[string]bool{}
	for i, t := range ts {
		if t.kind != tDirective || t.text != ".decl" {
			continue
		}
		for j := i + 1; j < len(ts) && ts[j].kind == tIdent; j += 2 {
			r.declared[ts[j].text] = true
			if j+1 >= len(ts) || ts[j+1].text != "," {
				break
			}
		}
	}
	for r.peek().kind != tEOF {
		var err error
		if r.peek().kind == tDirective {
			err = r.directive()
		} else {
			err = r.clause()
		}
		if err != nil {
			return nil, err
		}
	}
	r.p.Text = r.out.String()
	return r.p, nil
}

// unsupported returns the error of a feature drumql does not run.
func unsupported(at pos, feature string) error {
	return errAt(at, "unsupported: %s", feature)
}
