package server

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/drumql/drumql/store"
)

// checkArity refuses, before it is parsed, a Datalog text (a query, a
// fact, a rule) with an atom or a term of more than store.MaxArity
// arguments: no such fact can be stored or derived, and such a text costs
// its later steps (the query's variables, its check) in proportion to the
// arguments' count squared. It reads the text once, skipping quoted names
// and comments as the parser does; item names the text in the error,
// which is at the atom's opening parenthesis.
func checkArity(text, item string) *apiError {
	var open []int // per open parenthesis: its offset, then its arguments
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"':
			for i++; i < len(text) && text[i] != '"' && text[i] != '\n'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case c == '%' || c == '/' && i+1 < len(text) && text[i+1] == '/':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return nil // the parser reports it
			}
			i += end + 3
		case c == '(':
			open = append(open, i, 1)
		case c == ')' && len(open) > 0:
			open = open[:len(open)-2]
		case c == ',' && len(open) > 0:
			open[len(open)-1]++
			if open[len(open)-1] > store.MaxArity {
				off := open[len(open)-2]
				line := strings.Count(text[:off], "\n") + 1
				col := utf8.RuneCountInString(text[strings.LastIndexByte(text[:off], '\n')+1:off]) + 1
				return &apiError{Code: CodeParse, File: item, Line: line, Col: col,
					Error: fmt.Sprintf("more than %d arguments: no atom or term may have more (the store's limit)", store.MaxArity)}
			}
		}
	}
	return nil
}
