// Package policy is drumql's one query policy: how the answers of a query
// over a program are thresholded, where they come from, and how the
// confidences an answer has through several rules combine into its score.
// `drumql query`, `drumql eval` and `drumql serve` all decide through it,
// so that one program over one store ranks the answers of a query the same
// way in each.
//
// The threshold of an evaluation is the one asked for (--min, a request's
// min) when given, else the program's own (its @min directives, the
// smallest when merged files give several), else none: [ResolveMin].
// What a threshold cut is said, never dropped silently: [Threshold.Note],
// [CutText], [Threshold.StoredNote], [DecidedNote], [Threshold.UpdateNote],
// and [ThresholdConflict] when merged files disagree.
//
// The combination is the one asked for when given, else what the
// program's @aggregate directives record for the query's predicate
// ([Combine]):
//
//   - max: an answer's score is its best derivation's confidence;
//   - noisy-or: 1 − Π(1 − c) over the answer's k best rules (all of them
//     when k is 0), each rule's c its best confidence through that rule;
//   - grouped: noisy-or across groups of redundant rules, max inside a
//     group (SAFRAN's combination). Two rules of a relation are linked
//     when the Jaccard overlap of their predictions on the relation's
//     group triples reaches the directive's threshold, and groups are the
//     connected sets of linked rules ([Grouper.Groups]). The group triples are the
//     relation's triples of the store's valid split, or its base facts when
//     the valid split has none, at most [MaxGroupTriples] of them: they
//     depend on the store and the program, never on the queries asked, so
//     a query, a request and an evaluation of any split group the rules
//     alike.
//
// A query's answers are then rescored by [Policy.Rescore]: over the
// fixpoint the store holds for the program when it holds one (the rules of
// the query's predicate applied once to it), else by evaluating the
// program. An answer keeps its confidence when that is higher than the
// combination's (a stored fact, or one derived another way).
package policy
