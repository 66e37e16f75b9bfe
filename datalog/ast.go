package datalog

// Pos is a source position: file name, 1-based line and column.
type Pos struct {
	File string
	Line int
	Col  int
}

// TermKind tells variables from constants.
type TermKind uint8

// The kinds of terms.
const (
	Var      TermKind = iota // a variable; Value is its name ("_" is anonymous)
	Symbol                   // a symbolic constant; Value is the unquoted text
	Number                   // a numeric constant; Value is its canonical text
	Compound                 // an expression; X holds it and Value is empty
)

// Term is a variable, a constant or (Kind Compound) an expression:
// arithmetic, a built-in function or an aggregate (see Expr).
type Term struct {
	Kind  TermKind
	Value string
	Pos   Pos
	X     *Expr // the expression of a Compound term
}

// Atom is a predicate applied to terms.
type Atom struct {
	Pred string
	Args []Term
	Pos  Pos
}

// CmpOp is a comparison operator.
type CmpOp uint8

// The comparison operators.
const (
	OpEq CmpOp = iota // =
	OpNe              // !=
	OpLt              // <
	OpLe              // <=
	OpGt              // >
	OpGe              // >=
)

// LiteralKind tells the kinds of body literals apart.
type LiteralKind uint8

// The kinds of body literals.
const (
	Positive   LiteralKind = iota // an atom
	Negated                       // not atom
	Comparison                    // Left Op Right
	Builtin                       // a built-in test: Atom is contains(Sub, S) or match(Re, S)
)

// Literal is one element of a rule body.
type Literal struct {
	Kind  LiteralKind
	Atom  Atom // Positive, Negated and Builtin
	Op    CmpOp
	Left  Term // Comparison (an expression when Kind is Compound)
	Right Term // Comparison
	// Not negates a built-in test: !match(Re, S) holds when match does
	// not (Builtin only; a negated atom is Kind Negated).
	Not bool
	Pos Pos
}

// Rule is `[w ::] head :- body.`; Weight is 1 for a hard rule.
type Rule struct {
	Weight float64
	Head   Atom
	Body   []Literal
	Pos    Pos
	// Comment is free text the printer writes as a comment above the rule
	// (the miner's raw score and support); it is not parsed back.
	Comment string
}

// Fact is `[w ::] atom.` with a ground atom; Weight is 1 when not given.
type Fact struct {
	Weight float64
	Atom   Atom
	Pos    Pos
}

// Query is `atom?`.
type Query struct {
	Atom Atom
	Pos  Pos
}

// Import is `@import "path".`; Path is as written (relative to the file).
type Import struct {
	Path string
	Pos  Pos
}

// Program is a parsed Datalog program, its parts in source order.
type Program struct {
	Facts   []Fact
	Rules   []Rule
	Queries []Query
	Imports []Import
	// Aggregates are the `@aggregate` directives, in source order.
	Aggregates []Aggregate
	// Thresholds are the `@min` directives, in source order.
	Thresholds []Threshold
	// RuleGroups are the `@groups` directives, in source order.
	RuleGroups []RuleGroups
}

// Threshold is `@min X.`: the program's threshold, the smallest confidence
// an evaluation of it keeps (derivations below it are dropped). X is in
// (0, 1].
type Threshold struct {
	Min float64
	Pos Pos
}

// Threshold returns the program's threshold: the smallest of its `@min`
// directives (merged files with different thresholds keep every derivation
// that any of them keeps), and false when it has none, in which case the
// program is evaluated exactly.
func (p *Program) Threshold() (float64, bool) {
	if len(p.Thresholds) == 0 {
		return 0, false
	}
	m := p.Thresholds[0].Min
	for _, t := range p.Thresholds[1:] {
		m = min(m, t.Min)
	}
	return m, true
}
