// Package parser reads drumql's Datalog dialect (see package datalog for
// the language) into a [datalog.Program].
//
// The grammar is a participle v2 grammar over private grammar structs
// (grammar.go), with a hand-written participle lexer definition (lexer.go)
// that reports positions as file, line and column (columns count
// characters). Statements are cut at "." and "?" and parsed one at a time,
// so every syntax error of a file is reported, each as
//
//	file:line:col: error: unexpected ":-", expected ")"
//
// in a [datalog.Diagnostics], which [datalog.Diagnostics.Render] prints
// with the source line and a caret. For speed, statements are first tried
// by a hand-written recursive-descent parser of the same grammar; whatever
// it does not accept goes through participle, which reports the error.
// Tests and a fuzz test check that both build the same AST.
//
// [ParseString] parses text, [ParseFile] and [ParseFileContext] read a file
// and resolve its `@import`s (Datalog files and tab-separated triple files:
// regular files only, of bounded size, under the directory of the file
// given unless allowed; see [FileOptions]), [ParseQuery]
// parses a query such as `wife(X, alice)?`, and [ParseTriples] reads
// tab-separated triples as facts.
package parser
