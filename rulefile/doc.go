// Package rulefile reads and writes drumql's rule files: the Datalog files
// people write by hand ("expert" files) and the files drumql mine writes.
//
// A mined file starts with [MinedHeader]; its first line ends with the
// SHA-256 of the file ([Stamp]), so that a file edited by hand is told from
// one mine may replace ([StateOf], [CheckReplace], [WriteMined]). [Write]
// writes a rule file as drumql mine and drumql convert write it: the header
// comment, the @aggregate directives, the @min threshold and the rules, a
// comment line before each head relation.
//
// [Load] reads several files into one program: it resolves @import, merges
// the mined files' rules into the expert files' (a mined rule that would
// close a cycle through negation is left out with a warning, the rest runs),
// keeps every file's directives in file order, and validates the result.
// An error in any file is an error; [Load] reports every one of every file,
// as [datalog.Diagnostics], in source order. Nothing here prints: warnings
// come back in [Set.Warnings], to be rendered with [Source]. [UnknownBody]
// warns about body predicates that neither a store nor the program defines.
package rulefile
