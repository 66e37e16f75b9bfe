// Package wire holds the JSON objects drumql writes of answers, proofs,
// rules and changes (and of the store's relations): what `drumql query`,
// `explain` and `stats` print with --format json and what `drumql serve`
// answers under /v1 are the same objects, built here.
//
// The contract is the JSON text: keys are snake_case and stable; an
// [Answer] writes its variables in the query's order, then "confidence",
// then "proof"; a [Proof]'s "children" is always an array; numbers are
// written as encoding/json writes a float64 (the shortest form that reads
// back to the same value). The constructors convert the reasoner's and the
// store's values and never read a store; the output depends on their
// arguments only.
//
// The text forms are here too, so that every command prints an answer, a
// proof or a change alike: [WriteAnswers] (a table, or TSV), [AnswerStream]
// (answers written as a query reads them out, in any of the three formats),
// [WriteProof] (a proof tree), [WriteChanges], [UpdateSummary] and
// [CatchupTimes] (what an update changed), [ProgressText] and [TraceLine]
// (an infer as it goes), [WriteDerived] (what it derived),
// [Stats.WriteTable] (what a store holds), [MaterialLine] and [StaleNote]
// (the state of its derived facts).
package wire
