// Package linkpred evaluates link prediction: filtered ranking of every
// candidate entity for head queries (?, r, t) and tail queries (h, r, ?),
// reported under three tie policies side by side, with MRR, MR and Hits@k per
// direction and over all queries.
//
// # Ranks and ties
//
// For one query, let L = 1 + the number of eligible candidates that score
// strictly higher than the answer, and H = the number of eligible candidates
// that score at least as high as the answer, plus one (the answer itself).
// Eligible candidates are the entities of the candidate list (see
// [Options.Entities]) other than the answer and other than the query's other
// true answers listed by the [Filter]. The policies are:
//
//   - [Optimistic]: rank L, what the original DRUM and Neural LP code
//     computes (an all-zero score vector gets MRR 1.0);
//   - [Pessimistic]: rank H;
//   - [Expected]: every metric averaged uniformly over the ranks L..H, its
//     expected value under a random order of the tied candidates. This is the
//     honest headline number.
//
// # Scorers
//
// A [Scorer] scores a batch of queries that share a relation and a direction,
// either densely (one float32 per candidate, as the DRUM model computes by
// vector propagation) or sparsely (a list of scored candidates with optional
// tie-breaking vectors, as rule application yields). The aggregators [Max],
// [NoisyOr] and [GroupedNoisyOr] turn per-candidate lists of rule confidences
// into ranking keys; [RuleSketches] groups redundant rules for
// [GroupedNoisyOr]; a [SlotPrior] ranks the candidates no rule reaches.
//
// The package imports only the store: the concrete scorers, which adapt
// the DRUM model (miner) and the reasoner's rule application to [Scorer],
// live in package scoring (github.com/drumql/drumql/scoring), as the
// dependency rule of docs/ARCHITECTURE.md says. The ranking and the metrics read a store
// only through the small interfaces [Dataset] and [SplitReader], and can
// be used with any Scorer.
package linkpred
