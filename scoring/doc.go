// Package scoring adapts drumql's two ways of ranking candidates, the DRUM
// model and the rules applied by the reasoner, to [linkpred.Scorer], so that
// linkpred ranks them without importing the miner or the reasoner.
//
// [ModelScorer] scores queries with DRUM models (one model, or one per head
// group); [RuleScorer] applies a program's rules goal-directed from each
// query's given entity and aggregates the confidences each rule gives a
// candidate as the program's @aggregate directives say (or as an
// [AggOverride] says); [HybridScorer] ranks by the rules and breaks their ties
// by the model. [ChooseAggregation] ranks held-out queries under every
// candidate aggregation in one pass and returns the @aggregate directives to
// record; [MeasureCoverage] measures what mined rules cover.
//
// Every scorer is safe for concurrent use by linkpred's workers, and the
// ranks do not depend on the batch size or the number of workers. Nothing
// here writes to the store.
package scoring
