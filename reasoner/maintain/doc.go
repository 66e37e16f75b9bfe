// Package maintain keeps a materialisation of a weighted Datalog program up
// to date as its base facts and its rules change, and persists it between
// processes.
//
// [Materialise] evaluates a program over a store and keeps the fixpoint in
// memory with every fact's best proof; [Materialisation.Apply] applies a
// [Delta] (base facts added or removed, program rules and facts added or
// removed) and returns the [Change]: after it the materialisation holds
// exactly the facts and confidences a full evaluation of the new program over
// the new store would, and the change lists the facts whose confidence
// changed, with their old and new confidence. [Materialisation.Write] and
// [Materialisation.WriteUpdate] store the derived facts with their proofs and
// a record of the program ([Materialisation.Record], [RecordOf]); [Resume]
// rebuilds the materialisation from them, or fails with [ErrStaleRecord] when
// they do not match, and [UpToDate] says whether the stored facts are those of
// a program. [Catchup] is the whole update between processes that `drumql
// infer` and `drumql serve` make: decode the store's record, resume, apply the
// new program and the base changes logged since, write what changed; or say
// that the caller must evaluate from scratch. The semantics (max-product, graded negation, thresholds) are
// package reasoner's.
package maintain
