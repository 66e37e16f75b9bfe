// Package combine scores the answers of a query by combining the confidences
// that several rules give them, for link prediction: noisy-or over an
// answer's rules ([NoisyOr]) or over its k best ([NoisyOrTop], and
// [StoredNoisyOr] over a stored fixpoint), and the n best
// answers of a query under max or noisy-or ([QueryBest]), found at falling
// thresholds so that weak rules are evaluated only when they can change the
// result.
//
// Max-product evaluation (package reasoner) combines the derivations of one
// fact with max; the functions here are a final scoring pass over its answers
// and never change what the evaluation derives. Results are sorted by
// confidence, descending, then by values, and do not depend on rule order
// beyond what each function documents.
package combine
