package parser

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/drumql/drumql/datalog"
)

// Token types of the Datalog lexer.
const (
	tokIdent     lexer.TokenType = -(iota + 2) // a name: see datalog.IsNameStart and IsNamePart
	tokVar                                     // a variable: see datalog.IsVarStart and IsNamePart
	tokString                                  // "..." with escapes, raw (quotes included)
	tokNumber                                  // -?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?
	tokPunct                                   // :- :: : != <= >= = < > ( ) { } , ; . ? + - * / % ^ !
	tokDirective                               // @[a-z]+
	tokError                                   // a lexical error; Value is the message
)

var symbols = map[string]lexer.TokenType{
	"EOF":       lexer.EOF,
	"Ident":     tokIdent,
	"Var":       tokVar,
	"String":    tokString,
	"Number":    tokNumber,
	"Punct":     tokPunct,
	"Directive": tokDirective,
	"Error":     tokError,
}

// definition is the participle lexer definition of the dialect: a
// hand-written scanner (one pass, no regular expressions, no copies of the
// source) that is several times faster than a regexp-based lexer.
type definition struct{}

// Symbols implements lexer.Definition.
func (definition) Symbols() map[string]lexer.TokenType { return symbols }

// Lex implements lexer.Definition.
func (d definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

// LexString implements lexer.StringDefinition. A lexical error is returned
// by Next when the scanner reaches it.
func (definition) LexString(filename, src string) (lexer.Lexer, error) {
	toks, _ := scan(filename, src)
	return &tokenLexer{toks: toks}, nil
}

// tokenLexer replays scanned tokens; it ends with an EOF token.
type tokenLexer struct {
	toks []lexer.Token
	i    int
	eof  lexer.Position
}

func (l *tokenLexer) Next() (lexer.Token, error) {
	if l.i >= len(l.toks) {
		return lexer.EOFToken(l.eof), nil
	}
	t := l.toks[l.i]
	l.i++
	if t.Type == tokError {
		return t, &lexer.Error{Msg: t.Value, Pos: t.Pos}
	}
	return t, nil
}

// scanner turns source text into tokens. Columns count runes.
type scanner struct {
	src       string
	pos       int
	line      int
	lineStart int
	colOff    int // an offset on the current line whose column is colAt
	colAt     int
	file      string
	toks      []lexer.Token

	// The previous token, and the state that tells a minus sign from a
	// negative number and the remainder operator from a comment (see
	// operandBefore and remainder).
	prevType  lexer.TokenType
	prevValue string
	depth     int  // open parentheses and braces
	opSeen    bool // an operator since the last , ; :- . or brace at depth 0
	// parens says, per open parenthesis, whether it groups an expression
	// (it follows no name); closedExpr: the last ")" closed such a group.
	parens     []bool
	closedExpr bool
}

func newScanner(filename, src string) *scanner {
	s := &scanner{src: src, line: 1, colAt: 1, file: filename}
	if len(src) >= 3 && src[:3] == "\ufeff" {
		s.pos, s.lineStart, s.colOff = 3, 3, 3
	}
	return s
}

// scan returns the tokens of src, ending with an EOF token; lexical
// errors are tokens of type tokError (the scan goes on after them).
func scan(filename, src string) ([]lexer.Token, bool) {
	s := newScanner(filename, src)
	hasErr := false
	for {
		t, ok := s.next()
		if t.Type == tokError {
			hasErr = true
		}
		s.toks = append(s.toks, t)
		if !ok {
			return s.toks, hasErr
		}
	}
}

func (s *scanner) position(off int) lexer.Position {
	if off < s.colOff {
		s.colOff, s.colAt = s.lineStart, 1
	}
	col := s.colAt
	for i := s.colOff; i < off; i++ {
		if s.src[i]&0xC0 != 0x80 {
			col++
		}
	}
	s.colOff, s.colAt = off, col
	return lexer.Position{Filename: s.file, Offset: off, Line: s.line, Column: col}
}

func (s *scanner) newline(at int) {
	s.line++
	s.lineStart = at + 1
	s.colOff, s.colAt = at+1, 1
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// identStart reports whether a name or a variable starts at s.pos, whose
// byte is not ASCII.
func (s *scanner) identStart() bool {
	r, _ := utf8.DecodeRuneInString(s.src[s.pos:])
	return datalog.IsNameStart(r) || datalog.IsVarStart(r)
}

// identRest advances s.pos over the characters that can be part of a
// name and returns the new position.
func (s *scanner) identRest() int {
	for s.pos < len(s.src) {
		if isIdentByte(s.src[s.pos]) {
			s.pos++
		} else if n := s.identRuneLen(); s.src[s.pos] >= utf8.RuneSelf && n > 0 {
			s.pos += n
		} else {
			break
		}
	}
	return s.pos
}

// identRuneLen returns the length in bytes of the character at s.pos when
// it can be part of a name (datalog.IsNamePart), and 0 otherwise.
func (s *scanner) identRuneLen() int {
	r, n := utf8.DecodeRuneInString(s.src[s.pos:])
	if r == utf8.RuneError || !datalog.IsNamePart(r) {
		return 0
	}
	return n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *scanner) errorAt(off int, format string, args ...any) lexer.Token {
	return lexer.Token{Type: tokError, Value: fmt.Sprintf(format, args...), Pos: s.position(off)}
}

// next returns the next token; ok is false at the end (the EOF token).
func (s *scanner) next() (lexer.Token, bool) {
	t, ok := s.scanToken()
	afterName := s.prevType == tokIdent || s.prevType == tokString
	s.prevType, s.prevValue = t.Type, t.Value
	if t.Type == tokPunct {
		switch t.Value {
		case "(", "{":
			s.depth++
			if t.Value == "{" {
				s.opSeen = false
			}
			s.parens = append(s.parens, t.Value == "(" && !afterName)
		case ")", "}":
			if s.depth > 0 {
				s.depth--
			}
			s.closedExpr = false
			if n := len(s.parens); n > 0 {
				s.closedExpr = s.parens[n-1]
				s.parens = s.parens[:n-1]
			}
		case ",", ";", ":-", ".", "?":
			if s.depth == 0 {
				s.opSeen = false
			}
		case "=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "^":
			s.opSeen = true
		}
	}
	return t, ok
}

// operandBefore reports whether the previous token ends an operand (a
// variable, a constant, a closing parenthesis or brace): then "-" is the
// minus operator (X-1 is X - 1), otherwise a "-" before a digit starts a
// negative number (p(-1), X = -1).
func (s *scanner) operandBefore() bool {
	switch s.prevType {
	case tokVar, tokNumber, tokIdent, tokString:
		return true
	case tokPunct:
		return s.prevValue == ")" || s.prevValue == "}"
	}
	return false
}

// remainder reports whether a "%" at the current position is the remainder
// operator rather than the start of a comment. It must follow an operand (a
// variable, a number or a closing parenthesis); then it is the operator
// inside parentheses or braces, in an expression (after a comparison or
// arithmetic operator since the last comma), and at the start of a
// literal when an operand follows it on the line (`X % 2 = 0`, `(X + 1) %
// N > 0`; not after an atom: `p(X) % note`). Elsewhere, and always after a
// name, a "." or a ",", it starts a comment; "//" always does.
func (s *scanner) remainder() bool {
	switch {
	case s.prevType == tokVar, s.prevType == tokNumber:
	case s.prevType == tokPunct && s.prevValue == ")":
	default:
		return false
	}
	if s.depth > 0 || s.opSeen {
		return true
	}
	if s.prevType == tokPunct && !s.closedExpr {
		return false // after an atom
	}
	// An operand must follow on the same line.
	i := s.pos + 1
	for i < len(s.src) && (s.src[i] == ' ' || s.src[i] == '\t') {
		i++
	}
	if i >= len(s.src) {
		return false
	}
	c := s.src[i]
	if isDigit(c) || c == '(' || c == '-' {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s.src[i:])
	return datalog.IsVarStart(r)
}

// scanToken returns the next token after white space and comments; ok is
// false at the end (the EOF token).
func (s *scanner) scanToken() (lexer.Token, bool) {
	src := s.src
	// Skip white space and comments.
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case c == '\n':
			s.newline(s.pos)
			s.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			s.pos++
		case c == '%' && !s.remainder() || c == '/' && s.pos+1 < len(src) && src[s.pos+1] == '/':
			for s.pos < len(src) && src[s.pos] != '\n' {
				s.pos++
			}
		case c == '/' && s.pos+1 < len(src) && src[s.pos+1] == '*':
			if t, closed := s.blockComment(); !closed {
				return t, true
			}
		default:
			goto token
		}
	}
	return lexer.EOFToken(s.position(s.pos)), false
token:
	start := s.pos
	c := src[start]
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c >= utf8.RuneSelf && s.identStart():
		typ := tokIdent
		if r, _ := utf8.DecodeRuneInString(src[start:]); datalog.IsVarStart(r) {
			typ = tokVar
		}
		s.pos += s.identRuneLen()
		s.identRest()
		return lexer.Token{Type: typ, Value: src[start:s.pos], Pos: s.position(start)}, true
	case isDigit(c), c == '-' && s.pos+1 < len(src) && isDigit(src[s.pos+1]) && !s.operandBefore():
		return s.number(start), true
	case c == '"':
		return s.quoted(start), true
	case c == '@':
		s.pos++
		for s.pos < len(src) && src[s.pos] >= 'a' && src[s.pos] <= 'z' {
			s.pos++
		}
		return lexer.Token{Type: tokDirective, Value: src[start:s.pos], Pos: s.position(start)}, true
	}
	n := 1
	switch c {
	case ':':
		if s.pos+1 < len(src) && (src[s.pos+1] == '-' || src[s.pos+1] == ':') {
			n = 2
		}
	case '!':
		if s.pos+1 < len(src) && src[s.pos+1] == '=' {
			n = 2
		}
	case '<', '>':
		if s.pos+1 < len(src) && src[s.pos+1] == '=' {
			n = 2
		}
	case '=', '(', ')', ',', '.', '?', '{', '}', ';', '+', '-', '*', '/', '%', '^':
	default:
		n = 0
	}
	if n == 0 {
		return s.unexpected(start), true
	}
	s.pos += n
	return lexer.Token{Type: tokPunct, Value: src[start:s.pos], Pos: s.position(start)}, true
}

// blockComment skips the /* ... */ comment at s.pos. When it is not
// closed, closed is false and t is the error, at the comment's start.
func (s *scanner) blockComment() (t lexer.Token, closed bool) {
	src := s.src
	startTok := s.position(s.pos)
	s.pos += 2
	for s.pos < len(src) {
		if src[s.pos] == '*' && s.pos+1 < len(src) && src[s.pos+1] == '/' {
			s.pos += 2
			return lexer.Token{}, true
		}
		if src[s.pos] == '\n' {
			s.newline(s.pos)
		}
		s.pos++
	}
	return lexer.Token{Type: tokError, Value: "unterminated block comment", Pos: startTok}, false
}

// number scans the number starting at start (a digit, or "-" and a
// digit): digits, a fraction, an exponent. Name characters right after it
// (12abc) make it an error.
func (s *scanner) number(start int) lexer.Token {
	src := s.src
	s.pos++
	s.digits()
	if s.pos+1 < len(src) && src[s.pos] == '.' && isDigit(src[s.pos+1]) {
		s.pos++
		s.digits()
	}
	if s.pos < len(src) && (src[s.pos] == 'e' || src[s.pos] == 'E') {
		j := s.pos + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			s.pos = j
			s.digits()
		}
	}
	if end := s.pos; s.identRest() > end {
		// 12abc: not a number, not a name.
		return s.errorAt(start, "malformed number %s (quote it to make it a name)", excerpt(src[start:s.pos], maxTokenExcerpt))
	}
	return lexer.Token{Type: tokNumber, Value: src[start:s.pos], Pos: s.position(start)}
}

// unexpected returns the error for the character at start, which starts
// no token, and skips it.
func (s *scanner) unexpected(start int) lexer.Token {
	r, size := utf8.DecodeRuneInString(s.src[start:])
	s.pos += size
	if r == utf8.RuneError && size <= 1 {
		return s.errorAt(start, "invalid UTF-8 byte 0x%02x", s.src[start])
	}
	return s.errorAt(start, "unexpected character %q", r)
}

func (s *scanner) digits() {
	for s.pos < len(s.src) && isDigit(s.src[s.pos]) {
		s.pos++
	}
}

// quoted scans a double-quoted string starting at start, checking its
// escapes. The token keeps the quotes; unquote decodes it.
func (s *scanner) quoted(start int) lexer.Token {
	src := s.src
	s.pos++
	var bad lexer.Token
	for s.pos < len(src) {
		c := src[s.pos]
		switch c {
		case '"':
			s.pos++
			if bad.Type == tokError {
				return bad
			}
			return lexer.Token{Type: tokString, Value: src[start:s.pos], Pos: s.position(start)}
		case '\n':
			return s.errorAt(start, msgUnterminatedString)
		case '\\':
			if s.pos+1 >= len(src) || src[s.pos+1] == '\n' {
				s.pos++
				continue
			}
			switch src[s.pos+1] {
			case '"', '\\', 'n', 't', 'r':
				s.pos += 2
			case 'u':
				ok := s.pos+6 <= len(src)
				for i := 2; ok && i < 6; i++ {
					ok = isHex(src[s.pos+i])
				}
				if !ok {
					if bad.Type != tokError {
						bad = s.errorAt(s.pos, `invalid escape: \u must be followed by four hexadecimal digits`)
					}
					s.pos += 2
					continue
				}
				s.pos += 6
			default:
				if bad.Type != tokError {
					r, _ := utf8.DecodeRuneInString(src[s.pos+1:])
					bad = s.errorAt(s.pos, `invalid escape \%c in string (use \" \\ \n \t \r or \uXXXX)`, r)
				}
				s.pos += 2
			}
		default:
			s.pos++
		}
	}
	return s.errorAt(start, msgUnterminatedString)
}

const msgUnterminatedString = "unterminated string"

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
