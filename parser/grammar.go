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
//	statement  = import | aggregate | threshold | groups | clause
//	import     = "@import" String "."
//	aggregate  = "@aggregate" Ident [ "(" [ param { "," param } ] ")" ] [ "for" name ] "."
//	param      = Ident "=" Number
//	threshold  = "@min" term "."        (a Number in (0, 1], checked when lowered)
//	groups     = "@groups" "(" [ gparam { "," gparam } ] ")" "for" name
//	             [ ":" Number { Number } { ";" Number { Number } } ] "."
//	gparam     = Ident "=" ( Number | String )
//	clause     = [ Number "::" ] atom { "," atom } [ ":-" body ] ( "." | "?" )
//	atom       = name [ "(" [ expr { "," expr } ] ")" ]
//	body       = conj { ";" conj }
//	conj       = literal { "," literal }
//	literal    = ( "not" | "!" ) atom | expr [ op expr ]
//	expr       = product { ( "+" | "-" ) product }
//	product    = unary { ( "*" | "/" | "%" ) unary }
//	unary      = [ "-" ] primary [ "^" unary ]
//	primary    = Var | Number | "(" body ")"
//	           | name [ "(" [ expr { "," expr } ] ")" [ ":" ( "{" conj "}" | atom ) ]
//	                  | [ expr ] ":" ( "{" conj "}" | atom ) ]
//	name       = Ident | String
//	op         = "=" | "!=" | "<=" | ">=" | "<" | ">"
//
// The grammar is more permissive than the dialect, and lowering (parse.go)
// checks the rest: a literal without an operator is an atom (a name with
// or without arguments) or a parenthesised body; a parenthesised body in
// an expression is a single expression; a function is a plain name; an
// aggregate is count, sum, min, max or mean; several heads need a body.
//
// `not` is therefore a keyword: a predicate or constant named "not" is
// written quoted.

type gStatement struct {
	Import    *gImport    `parser:"  @@"`
	Aggregate *gAggregate `parser:"| @@"`
	Threshold *gThreshold `parser:"| @@"`
	Groups    *gGroups    `parser:"| @@"`
	Clause    *gClause    `parser:"| @@"`
}

// gGroups is `@groups(threshold = T, rules = N, sum = "HEX") for REL: 1 3; 2 4.`
// (the groups optional); the parameters are checked when it is lowered.
type gGroups struct {
	Pos    lexer.Position
	Params []*gGroupParam `parser:"'@groups' '(' ( @@ ( ',' @@ )* )? ')'"`
	For    string         `parser:"'for' @( Ident | String )"`
	Groups []*gGroup      `parser:"( ':' @@ ( ';' @@ )* )? '.'"`
}

// gGroupParam is one `name = value` parameter of @groups.
type gGroupParam struct {
	Pos   lexer.Position
	Name  string `parser:"@Ident '='"`
	Value string `parser:"@( Number | String )"`
}

// gGroup is one group of @groups: rule ordinals.
type gGroup struct {
	Pos   lexer.Position
	Rules []string `parser:"@Number+"`
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
	Weight string     `parser:"( @Number '::' )?"`
	Head   *gAtom     `parser:"@@"`
	Heads  []*gAtom   `parser:"( ',' @@ )*"`
	Body   *gDisjunct `parser:"( ':-' @@ )?"`
	End    string     `parser:"@( '.' | '?' )"`
}

type gAtom struct {
	Pos    lexer.Position
	Pred   string   `parser:"@( Ident | String )"`
	Parens bool     `parser:"( @'('"`
	Args   []*gExpr `parser:"  ( @@ ( ',' @@ )* )? ')' )?"`
}

// gDisjunct is a body: conjunctions separated by ";" (expanded into one
// rule each when lowered).
type gDisjunct struct {
	Pos   lexer.Position
	Conjs []*gConjunct `parser:"@@ ( ';' @@ )*"`
}

type gConjunct struct {
	Lits []*gLiteral `parser:"@@ ( ',' @@ )*"`
}

// gLiteral is `not atom`, or an expression optionally compared with
// another. An expression alone must be an atom (a name with or without
// arguments: a predicate, or a built-in test), or a parenthesised body.
type gLiteral struct {
	Pos   lexer.Position
	Neg   *gAtom `parser:"  ( 'not' | '!' ) @@"`
	Left  *gExpr `parser:"| @@"`
	Op    string `parser:"  ( @( '=' | '!=' | '<=' | '>=' | '<' | '>' )"`
	Right *gExpr `parser:"    @@ )?"`
}

// gExpr is a sum: terms joined by + and -, left associative.
type gExpr struct {
	Pos   lexer.Position
	Left  *gProduct  `parser:"@@"`
	Right []*gAddend `parser:"@@*"`
}

type gAddend struct {
	Pos   lexer.Position
	Op    string    `parser:"@( '+' | '-' )"`
	Right *gProduct `parser:"@@"`
}

// gProduct is factors joined by *, / and %, left associative.
type gProduct struct {
	Pos   lexer.Position
	Left  *gUnary    `parser:"@@"`
	Right []*gFactor `parser:"@@*"`
}

type gFactor struct {
	Pos   lexer.Position
	Op    string  `parser:"@( '*' | '/' | '%' )"`
	Right *gUnary `parser:"@@"`
}

// gUnary is an optionally negated power; ^ binds tighter than unary minus
// (-2^2 is -(2^2)) and is right associative.
type gUnary struct {
	Pos  lexer.Position
	Neg  bool      `parser:"@'-'?"`
	Base *gPrimary `parser:"@@"`
	Exp  *gUnary   `parser:"( '^' @@ )?"`
}

// gPrimary is a variable, a number, a name (a constant, a function call,
// an atom or an aggregate), or a parenthesised expression or body.
type gPrimary struct {
	Pos   lexer.Position
	Var   string     `parser:"  @Var"`
	Num   string     `parser:"| @Number"`
	Name  *gName     `parser:"| @@"`
	Paren *gDisjunct `parser:"| '(' @@ ')'"`
}

// gName is a name, then arguments (a function call or an atom), or an
// aggregate: `count : { body }`, `sum V : { body }` (the body may be a
// single atom without braces). A parenthesised target right after the
// name (`min (Z + 1) : { a(Z) }`) first reads as arguments; the ":" after
// them (Colon) makes them the target.
type gName struct {
	Pos    lexer.Position
	Name   string     `parser:"@( Ident | String )"`
	Parens bool       `parser:"( @'('"`
	Args   []*gExpr   `parser:"  ( @@ ( ',' @@ )* )? ')'"`
	Colon  bool       `parser:"  ( @':'"`
	PBody  *gConjunct `parser:"    ( '{' @@ '}'"`
	PAtom  *gAtom     `parser:"    | @@ ) )?"`
	Target *gExpr     `parser:"| ( @@ )? ':'"`
	Braced *gConjunct `parser:"  ( '{' @@ '}'"`
	Single *gAtom     `parser:"  | @@ ) )?"`
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
