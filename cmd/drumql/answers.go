package main

import (
	"encoding/json"
	"io"

	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/wire"
)

// The text forms of answers, proofs and changes are wire's (WriteAnswers,
// AnswerStream, WriteProof, WriteChanges); the JSON ones its objects.

// printAnswersJSON writes the answers as JSON (wire.Answers): for a
// ground query an object {"holds", "confidence"}, otherwise an array of
// rows; with explain, every answer carries "proof".
func printAnswersJSON(w io.Writer, vars []string, answers []reasoner.Answer, explain bool) error {
	return writeJSON(w, wire.Answers(vars, answers, explain))
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
