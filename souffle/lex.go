package souffle

import (
	"fmt"
	"strings"
)

// tokKind is the kind of a Soufflé token.
type tokKind uint8

const (
	tIdent     tokKind = iota // a name: relation, variable, type, functor, keyword
	tNumber                   // a number as written
	tString                   // a string with its quotes, as written
	tPunct                    // an operator or punctuation
	tDirective                // .decl, .input, ...: the name with its dot
	tEOF
)

// pos is a position in a source file.
type pos struct {
	file      string
	line, col int
}

func (p pos) String() string { return fmt.Sprintf("%s:%d:%d", p.file, p.line, p.col) }

// token is one token of a Soufflé source.
type token struct {
	kind tokKind
	text string
	at   pos
}

// Error is an error at a position of a Soufflé source.
type Error struct {
	At  string // file:line:col
	Msg string
}

func (e *Error) Error() string { return e.At + ": error: " + e.Msg }

func errAt(p pos, format string, args ...any) *Error {
	return &Error{At: p.String(), Msg: fmt.Sprintf(format, args...)}
}

// puncts are Soufflé's multi-character operators, longest first.
var puncts = []string{":-", "<=", ">=", "!=", "<:", "::"}

// lex cuts the lines of a preprocessed source into tokens; lines[i] is at
// where[i].
func lex(lines []string, where []pos) ([]token, error) {
	var ts []token
	inComment := false
	var commentAt pos
	for li, line := range lines {
		at := where[li]
		for i := 0; i < len(line); {
			c := line[i]
			p := pos{at.file, at.line, at.col + i}
			if inComment {
				if strings.HasPrefix(line[i:], "*/") {
					inComment = false
					i += 2
				} else {
					i++
				}
				continue
			}
			switch {
			case c == ' ' || c == '\t' || c == '\r':
				i++
			case strings.HasPrefix(line[i:], "//"):
				i = len(line)
			case strings.HasPrefix(line[i:], "/*"):
				inComment, commentAt = true, p
				i += 2
			case isIdentStart(c):
				j := i + 1
				for j < len(line) && (isIdentPart(line[j]) || line[j] == '.' && j+1 < len(line) && isIdentStart(line[j+1])) {
					j++ // a qualified name (a.b) is one token
				}
				ts = append(ts, token{tIdent, line[i:j], p})
				i = j
			case c == '.' && i+1 < len(line) && isLetter(line[i+1]) && directives[directiveWord(line[i+1:])]:
				j := i + 1
				for j < len(line) && isIdentPart(line[j]) {
					j++
				}
				ts = append(ts, token{tDirective, line[i:j], p})
				i = j
			case c >= '0' && c <= '9' || c == '.' && i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9':
				j := i + 1
				for j < len(line) && (isIdentPart(line[j]) || line[j] == '.' && j+1 < len(line) && line[j+1] >= '0' && line[j+1] <= '9' ||
					(line[j] == '+' || line[j] == '-') && (line[j-1] == 'e' || line[j-1] == 'E') && !strings.HasPrefix(line[i:], "0x")) {
					j++
				}
				ts = append(ts, token{tNumber, line[i:j], p})
				i = j
			case c == '"':
				j := i + 1
				for j < len(line) && line[j] != '"' {
					if line[j] == '\\' {
						j++
					}
					j++
				}
				if j >= len(line) {
					return nil, errAt(p, "unterminated string")
				}
				ts = append(ts, token{tString, line[i : j+1], p})
				i = j + 1
			default:
				n := 1
				for _, op := range puncts {
					if strings.HasPrefix(line[i:], op) {
						n = len(op)
						break
					}
				}
				ts = append(ts, token{tPunct, line[i : i+n], p})
				i += n
			}
		}
	}
	if inComment {
		return nil, errAt(commentAt, "unterminated comment")
	}
	end := pos{}
	if len(where) > 0 {
		end = where[len(where)-1]
		end.col = len(lines[len(lines)-1]) + 1
	}
	return append(ts, token{kind: tEOF, at: end}), nil
}

func isLetter(c byte) bool     { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentStart(c byte) bool { return isLetter(c) || c == '_' || c == '?' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' }

// directives are the names of Soufflé's directives (after the dot).
var directives = map[string]bool{
	"decl": true, "type": true, "input": true, "output": true, "printsize": true, "limitsize": true,
	"pragma": true, "comp": true, "init": true, "functor": true, "override": true, "plan": true,
	"number_type": true, "symbol_type": true, "lattice": true,
}

// directiveWord returns the name at the start of s.
func directiveWord(s string) string {
	j := 0
	for j < len(s) && isIdentPart(s[j]) {
		j++
	}
	return s[:j]
}
