// Package tsv reads tab-separated triple files, the one reader behind the
// store importer (drumql load) and the parser (@import of a non-.dl file).
//
// # Format
//
// The input is UTF-8 text, one triple a line:
//
//	head<TAB>relation<TAB>tail
//
// In detail:
//
//   - Lines end with LF; carriage returns at the end of a line (CRLF, or
//     stray extra CRs) are dropped. A CR elsewhere is part of a field.
//   - A UTF-8 byte order mark at the very start of the input is skipped;
//     anywhere else it is an ordinary character.
//   - A line that is empty or holds only white space (tabs included, in the
//     sense of unicode.IsSpace) is skipped. It still counts for line numbers.
//   - There are no comments: # is an ordinary character, so a line of
//     notes is a line with the wrong number of fields.
//   - A line must split on tabs into exactly three fields; a trailing tab
//     makes a fourth, empty field, so it is an error.
//   - A field that is empty or only white space is an error. Other fields
//     are kept verbatim: spaces around a name are part of the name.
//   - A line that is not valid UTF-8 is an error.
//
// Every malformed line is reported, as an *Error naming the file, the line
// and the column of the offending field, and reading goes on, so a caller
// can report all of them; deciding how many to show is the caller's job.
//
// [Parse] yields substrings of its input: reading a whole file into one
// string and parsing it costs no allocation per line.
package tsv
