package main

import (
	"encoding/json"
	"io"
)

// The text forms of answers, proofs and changes are wire's (WriteAnswers,
// AnswerStream, WriteProof, WriteChanges); the JSON ones its objects.

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
