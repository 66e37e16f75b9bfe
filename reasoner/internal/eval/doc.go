// Package eval is the reasoner's evaluator: it compiles rules to plans and
// evaluates them with one semi-naive, max-product evaluator over a store
// (relations, symbols, joins, the factorised chain join, expressions and
// aggregates), materialises a program into the store (Infer), turns the
// facts it derived into answers and proofs, and keeps what incremental
// maintenance needs to reuse its state (the touch log, the encoded record of
// a materialised program). It defines the types the reasoner's packages
// share: Options, Answer, Proof, the statistics and the errors.
//
// The contract of what it computes is package reasoner's documentation,
// which is its public face: reasoner's types are eval's under aliases and
// its functions call eval's. Its other exported names are not public API:
// they exist for the packages built on the evaluator (reasoner/internal/goal,
// reasoner/internal/query, reasoner/maintain, reasoner/combine), which read
// and drive its state (relations, symbols, plans), and they may change with
// them. Results never depend on scheduling or on
// Options.Threads.
package eval
