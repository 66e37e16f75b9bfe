package reasoner

import (
	"context"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/reasoner/internal/eval"
	"github.com/drumql/drumql/reasoner/internal/query"
	"github.com/drumql/drumql/store"
)

// The evaluator lives in internal/eval and internal/query; this package is
// their public face: the types below are theirs, under their public names.

// Options configures an evaluation. The zero value means the defaults.
type Options = eval.Options

// EvalStats reports what an evaluation did (Options.Stats).
type EvalStats = eval.EvalStats

// InferStats reports what Infer did.
type InferStats = eval.InferStats

// MemoryLimitError is the error of an Infer stopped by Options.MaxMemory;
// it wraps ErrMemoryLimit.
type MemoryLimitError = eval.MemoryLimitError

// Phase is the stage of an Infer that a Progress report is about.
type Phase = eval.Phase

// Progress is what Infer reports as it goes (Options.Progress).
type Progress = eval.Progress

// Answer is one answer to a query.
type Answer = eval.Answer

// Proof is the best derivation of a fact, as a tree down to base facts.
type Proof = eval.Proof

// RuleScore is the confidence one rule gives a candidate (EachRuleHit).
type RuleScore = eval.RuleScore

// RuleHit is the evidence rules give for one candidate entity.
type RuleHit = eval.RuleHit

// Engine is a program prepared for many goal-directed queries over one
// store: the program is validated and analysed once, and the extensional
// relations it reads are loaded once and shared by all queries. The store
// must not change while the Engine is used. Its methods are safe for
// concurrent use.
type Engine = query.Engine

// QueryChecker checks queries as CheckQuery does, against the relations
// of a store and the predicates of a program as they were when it was
// made: a server checks every query against the same program, of up to a
// hundred thousand rules, and makes a new one when either changes.
type QueryChecker = eval.QueryChecker

// Default option values.
const (
	// Exact is the threshold of an exact evaluation, the smallest positive
	// float64: only a confidence that underflowed to 0 is dropped, which
	// max-product needs to terminate on a cyclic program.
	Exact = eval.Exact
	// RankMin is the threshold that link prediction (eval) applies rules
	// with: weak rules still rank candidates that no strong rule reaches.
	RankMin         = eval.RankMin
	DefaultMaxFacts = eval.DefaultMaxFacts
)

// The phases of Infer.
const (
	// PhaseDerive is the fixpoint: rounds of rule applications.
	PhaseDerive = eval.PhaseDerive
	// PhaseWrite is the write of the derived facts to the store.
	PhaseWrite = eval.PhaseWrite
)

// The errors of the reasoner, the evaluator's values: errors.Is matches them
// whichever package returned them.
var (
	ErrTooManyFacts       = eval.ErrTooManyFacts
	ErrMemoryLimit        = eval.ErrMemoryLimit
	ErrUnknownPredicate   = eval.ErrUnknownPredicate
	ErrUndefinedPredicate = eval.ErrUndefinedPredicate
	ErrNotGround          = eval.ErrNotGround
	ErrNoProof            = eval.ErrNoProof
	ErrInvalidProgram     = eval.ErrInvalidProgram
	// ErrStringTooLong: an expression made a string longer than
	// Options.MaxString (by default the store's longest name,
	// store.MaxNameLen).
	ErrStringTooLong = eval.ErrStringTooLong
)

// Infer materialises prog over the base facts of st: it evaluates the
// program (its facts and rules, stratum by stratum, with max-product
// confidences) and replaces the store's derived facts by the result in one
// atomic call. The store's previous derived facts are not an input. Program
// facts become derived facts with their weight as confidence. Every derived
// fact carries the provenance of its best derivation (see encodeRule). On
// error or cancellation nothing is written. Program symbols the store does
// not know are interned before the write.
//
// The store records the program with them (see Materialisation.Record),
// so that a later update can resume from them (Resume).
//
// The derived facts go from the evaluator's tables to the store one at a
// time (store.Store.ReplaceDerivedRecord): the write holds no second copy of
// them, and the join indexes are released before it.
func Infer(ctx context.Context, st store.Store, prog *datalog.Program, opt Options) (InferStats, error) {
	return eval.Infer(ctx, st, prog, opt)
}

// Evaluation is the fixpoint of a program over a store, in memory
// (Evaluate): its relations read as symbol ids with Each, names with Name.
type Evaluation = eval.Evaluation

// Evaluate evaluates prog over the base facts of st as Infer does (same
// options, same facts and confidences) and returns the fixpoint instead
// of writing it: the store is not changed and the derived facts exist
// only in the evaluator's columns, without proofs. It is what `drumql
// run` uses, which writes the relations to files and has no use for
// derived facts in a store (about 240 bytes a fact in a store.Mem, beside
// the evaluator's tens). The join indexes are released before it returns.
func Evaluate(ctx context.Context, st store.Store, prog *datalog.Program, opt Options) (*Evaluation, error) {
	return eval.Evaluate(ctx, st, prog, opt)
}

// Query answers q over the store's base and derived facts and what prog
// derives from them (prog may be nil). The store's derived facts count as
// facts with their stored confidences. Answers bind the query's distinct
// variables in order of first appearance and are sorted by confidence,
// descending, then by values; a ground query has at most one answer, with
// no values. With Options.Explain every answer carries its best proof.
//
// A query with a constant over a predicate defined by rules is evaluated
// goal-directed, with magic sets: only the facts relevant to the constants
// are derived. Predicates that the relevant rules use under negation are
// evaluated in full (with everything they depend on), so that negation
// stays stratified. When the rewrite would compute every relation it
// rewrites in full anyway (it demands each with no argument bound, as the
// rules with constants of mined files do), the query is evaluated bottom-up
// over the strata it depends on and filtered instead; the choice depends on
// the program and the query only (see the package documentation). A predicate neither in the store nor defined by prog is
// an error wrapping ErrUnknownPredicate that suggests the nearest names.
func Query(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, opt Options) ([]Answer, error) {
	return query.Query(ctx, st, prog, q, opt)
}

// Count returns the number of answers Query would return, without
// building them (no names, no sorting: on millions of answers that is most
// of the work).
func Count(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, opt Options) (int, error) {
	return query.Count(ctx, st, prog, q, opt)
}

// QueryFunc calls yield with every answer Query would return, in no
// particular order (deterministic) and without proofs, until yield returns
// false. Nothing is sorted, collected or allocated per answer: beyond the
// evaluation itself, memory does not grow with the number of answers. The
// answer's Values and Fact.Args are reused for the next answer once yield
// returns: yield copies what it keeps. The confidences are final: they are
// read out after the fixpoint. A query without rules or
// program facts is answered from the store as its base and derived facts
// are scanned (in the order of their arguments), except that when the
// query has an anonymous argument or a number constant, whose projection
// may make several facts one answer, the answers are collected first as
// symbol ids, each with its best confidence.
func QueryFunc(ctx context.Context, st store.Store, prog *datalog.Program, q datalog.Atom, opt Options, yield func(Answer) bool) error {
	return query.QueryFunc(ctx, st, prog, q, opt, yield)
}

// Explain returns the best proof of the ground atom fact: over prog (which
// may be nil) and the store as Query sees them, or, when prog has neither
// rules nor facts, from the provenance Infer stored. A fact that does not
// hold is an error wrapping ErrNoProof.
func Explain(ctx context.Context, st store.Store, prog *datalog.Program, fact datalog.Atom, opt Options) (*Proof, error) {
	return query.Explain(ctx, st, prog, fact, opt)
}

// Prepare validates prog (nil means no rules) and prepares it for queries
// over st: it loads the store facts of every predicate the rules read.
func Prepare(ctx context.Context, st store.Store, prog *datalog.Program, opt Options) (*Engine, error) {
	return query.Prepare(ctx, st, prog, opt)
}

// NewQueryChecker returns the checker of queries over st and prog (which
// may be nil).
func NewQueryChecker(st store.Store, prog *datalog.Program) (*QueryChecker, error) {
	return eval.NewQueryChecker(st, prog)
}

// CheckQuery makes the check Query, Count and Explain make before any
// work: it returns nil when q can be asked of the store st and the program
// prog (which may be nil), and otherwise an error wrapping
// ErrUnknownPredicate and a [datalog.Diagnostics] at q: the predicate is
// neither a relation of st nor defined by a rule or fact of prog (the
// diagnostic suggests the nearest names), or it has another number of
// arguments. An error reading st's relations is returned as it is.
func CheckQuery(st store.Store, prog *datalog.Program, q datalog.Atom) error {
	if prog == nil {
		prog = &datalog.Program{}
	}
	return eval.CheckProgramQuery(st, prog, q)
}
