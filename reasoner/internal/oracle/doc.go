// Package oracle is the reference the reasoner's tests compare it with: a
// naive evaluator of weighted Datalog programs (Naive: every rule applied to
// every combination of facts, by brute force, until nothing changes, with
// max-product confidences, graded negation, expressions, built-ins and
// aggregates), written from the documented semantics (package reasoner's
// documentation, the dialect's) and sharing nothing with the engine but the
// AST and the stratification; the random graphs, programs and queries the
// tests run both on (RandomCase, RandomMinedCase, RandomQueries); and the
// text the tests compare the evaluator's answers and derived facts by
// (FormatAnswers, DerivedDump, FactString).
//
// It exists for tests (it imports testing) and is shared by the tests of
// reasoner/internal/query, reasoner/maintain and reasoner/combine, which
// cannot import each other's test files. Its answers are deterministic; the
// random cases depend on the given source only.
package oracle
