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
// into ranking keys; [GroupRules] groups redundant rules for
// [GroupedNoisyOr]; a [SlotPrior] ranks the candidates no rule reaches.
//
// The concrete scorers are here too: [ModelScorer] scores with DRUM models
// (miner.Model, one or a model per head group), [RuleScorer] with the rules
// of a Datalog program applied by the reasoner and aggregated as its
// @aggregate directives say, and [HybridScorer] ranks by rules, then by
// model. [ChooseAggregation] chooses those directives on held-out queries
// (what drumql mine records), and [MeasureCoverage] measures what mined
// rules cover. The ranking and the metrics themselves read a store only
// through the small interfaces [Dataset] and [SplitReader], and can be used
// with any Scorer.
package linkpred
