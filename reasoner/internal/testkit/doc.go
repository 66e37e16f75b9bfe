// Package testkit is for tests only: the fixtures the tests of every
// package under reasoner share, which cannot import each other's test
// files. It loads stores from TSV text (NewStore, LoadTSV) and the
// fb15k-237 data set (FB15k), parses programs and queries or fails the test
// (MustParse, MustQuery), cancels a context at a point that depends only on
// the evaluation (CancelAfter), and generates the random graphs and
// programs of the shapes drumql mine writes (MinedGraph, MinedProgram,
// ComponentsGraph, ComponentsProgram).
//
// Its non-test files import testing, and no package but a test imports it.
// It imports none of the reasoner's packages, so that the tests of
// reasoner/internal/eval, the floor, may use it too; what compares the
// evaluator's answers and facts is in reasoner/internal/oracle. Everything
// it generates depends on the given source of randomness only.
package testkit
