// Package jsonflags maps command-line flag values to and from JSON, for a
// configuration file that holds a command's flags as one JSON object: the
// file decoded ([Decode]), the JSON type a flag of a Go type takes
// ([TypeOf]), the check of a decoded value against it ([Is], [TypeName]),
// the value as a flag parser that reads text takes it ([Text]) and a
// flag's value as the file writes it ([Encode]).
//
// Values are decoded with [encoding/json.Decoder.UseNumber], so that
// numbers keep the text they were written as (64-bit integers and seeds
// stay exact); the types are named in English ("a number", "an array of
// strings"), as an error message says them. The package has no state and
// knows no flag parser.
package jsonflags
