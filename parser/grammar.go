package parser

import (
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The grammar is LL(1) and parsed with no lookahead beyond the next token
// (participle.UseLookahead(0)): a branch that has consumed a token is
// committed, so a syntax error is reported where it is, not where a
// backtracking parser last gave up. It parses one statement at a time (see
// parseTokens): the tokens up to and including a "." or "?".
//
//	statement  = import | aggregate | threshold | clause
//	import     = "@import" String "."
//	aggregate  = "@aggregate" Ident [ "(" [ param { "," param } ] ")" ] [ "for" name ] "."
//	param      = Ident "=" Number
//	threshold  = "@min" term "."        (a Number in (0, 1], checked when lowered)
//	clause     = [ Number "::" ] atom [ ":-" literal { "," literal } ] ( "." | "?" )
//	atom       = name [ "(" [ term { "," term } ] ")" ]
//	literal    = "not" atom
//	           | ( Var | Number ) op term
//	           | name [ "(" [ term { "," term } ] ")" | op term ]
//	name       = Ident | String
//	term       = Var | Ident | String | Number
//	op         = "=" | "!=" | "<=" | ">=" | "<" | ">"
//
// `not` is therefore a keyword: a predicate or constant named "not" is
// written quoted.

type gStatement struct {
	Import    *gImport    `parser:"  @@"`
	Aggregate *gAggregate `parser:"| @@"`
	Threshold *gThreshold `parser:"| @@"`
	Clause    *gClause    `parser:"| @@"`
}

// gThreshold is `@min X.`. X is parsed as any term so that a name or a
// variable in its place gets a message that says what @min takes; that it
// is a number in (0, 1] is checked when it is lowered.
type gThreshold struct {
	Pos   lexer.Position
	Value *gMinValue `parser:"'@min' @@ '.'"`
}

// gMinValue is the value of a threshold directive (a term, see gThreshold).
type gMinValue struct {
	Pos   lexer.Position
	Value string `parser:"@( Var | Ident | String | Number )"`
}

type gAggregate struct {
	Pos    lexer.Position
	Method string    `parser:"'@aggregate' @Ident"`
	Parens bool      `parser:"( @'('"`
	Params []*gParam `parser:"  ( @@ ( ',' @@ )* )? ')' )?"`
	For    string    `parser:"( 'for' @( Ident | String ) )? '.'"`
}

type gParam struct {
	Pos   lexer.Position
	Name  string `parser:"@Ident '='"`
	Value string `parser:"@Number"`
}

type gImport struct {
	Pos  lexer.Position
	Path string `parser:"'@import' @String '.'"`
}

type gClause struct {
	Pos    lexer.Position
	Weight string      `parser:"( @Number '::' )?"`
	Head   *gAtom      `parser:"@@"`
	Body   []*gLiteral `parser:"( ':-' @@ ( ',' @@ )* )?"`
	End    string      `parser:"@( '.' | '?' )"`
}

type gAtom struct {
	Pos    lexer.Position
	Pred   string   `parser:"@( Ident | String )"`
	Parens bool     `parser:"( @'('"`
	Args   []*gTerm `parser:"  ( @@ ( ',' @@ )* )? ')' )?"`
}

type gLiteral struct {
	Pos   lexer.Position
	Neg   *gAtom       `parser:"  'not' @@"`
	Cmp   *gComparison `parser:"| @@"`
	Named *gNamed      `parser:"| @@"`
}

// gComparison is a comparison whose left operand is a variable or number.
type gComparison struct {
	Left  *gOperand `parser:"@@"`
	Op    string    `parser:"@( '=' | '!=' | '<=' | '>=' | '<' | '>' )"`
	Right *gTerm    `parser:"@@"`
}

type gOperand struct {
	Pos   lexer.Position
	Value string `parser:"@( Var | Number )"`
}

// gNamed is an atom, or a comparison whose left operand is a symbol.
type gNamed struct {
	Pos    lexer.Position
	Name   string   `parser:"@( Ident | String )"`
	Parens bool     `parser:"( @'('"`
	Args   []*gTerm `parser:"  ( @@ ( ',' @@ )* )? ')'"`
	Op     string   `parser:"| @( '=' | '!=' | '<=' | '>=' | '<' | '>' )"`
	Right  *gTerm   `parser:"  @@ )?"`
}

type gTerm struct {
	Pos   lexer.Position
	Value string `parser:"@( Var | Ident | String | Number )"`
}

// statementParser is built once; a participle parser is safe for
// concurrent use.
var statementParser = sync.OnceValue(func() *participle.Parser[gStatement] {
	return participle.MustBuild[gStatement](
		participle.Lexer(definition{}),
		participle.UseLookahead(0),
	)
})
