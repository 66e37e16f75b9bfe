// Package eval is the reasoner's evaluator: it compiles rules to plans and
// evaluates them with one semi-naive, max-product evaluator over a store
// (Infer, Query, Count, Explain, the Engine and its link-prediction rule
// application), rewrites a query's rules with magic sets and races the
// rewrite against the bottom-up evaluation, and keeps what incremental
// maintenance needs to reuse its state (the touch log, the encoded record of
// a materialised program).
//
// The contract of what it computes is package reasoner's documentation,
// which is its public face: reasoner's types are eval's under aliases and
// its functions call eval's. Its other exported names are not public API:
// they exist for reasoner/maintain and reasoner/combine, which read and
// drive the evaluator's state (relations, symbols, plans, chain walks), and
// they may change with them. Results never depend on scheduling or on
// Options.Threads.
package eval
