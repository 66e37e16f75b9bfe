// Package lineerr is the error of one line of an input file, the one type
// behind the store importer's line errors (store.LineError: triple files)
// and the rule-file readers' (exchange.LineError: AnyBURL and AMIE), which
// both name it by an alias.
//
// An [Error] names the file, the 1-based line and, when the error is about
// a part of the line, the 1-based column, in the form compilers use
// ("file:line:col: reason"). Collecting the errors of a file, and deciding
// how many to show, is the reader's job.
//
// It is a leaf: it imports only the standard library, and every package of
// the module may import it (docs/ARCHITECTURE.md, "The dependency rule").
package lineerr
