package eval

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/store"
)

// Options configures an evaluation. The zero value means the defaults.
type Options struct {
	// Min is the smallest confidence kept: derivations below it are dropped.
	// 0 means the program's threshold (its `@min` directive, see
	// datalog.Program.Threshold) or, for a program without one, Exact: a
	// hand-written program means what it says, every answer included.
	Min float64
	// Stats, if not nil, is filled with what the evaluation did, among
	// which what the threshold cut (see EvalStats).
	Stats *EvalStats
	// MaxFacts caps the number of facts an evaluation may derive (program
	// facts included); more is an error wrapping ErrTooManyFacts (0 means
	// 50,000,000).
	MaxFacts int
	// Threads is the number of goroutines joins may use (0 means
	// GOMAXPROCS). Results never depend on it.
	Threads int
	// Explain makes Query and Engine.Query attach the best proof of every
	// answer (Answer.Proof), at the cost of recording provenance.
	Explain bool
	// Progress, if not nil, is called by Infer after every round of the
	// fixpoint and every 65,536 facts while the derived facts are stored,
	// from the calling goroutine.
	Progress func(Progress)
	// MaxMemory caps the memory (bytes) the process holds while Infer's
	// fixpoint grows and while it stores the result:
	// it is checked after every round and, within a round, every few
	// hundred thousand candidate facts, then every 4,096 facts written;
	// beyond it Infer stops with an error wrapping ErrMemoryLimit and the
	// store is unchanged. A query's evaluations (both, when the rewrite
	// races the bottom-up evaluation) are capped the same way and stop
	// with the same error. The memory counted is the Go runtime's plus the
	// resident pages of files mapped into the process (the store's tables
	// and logs), as peak RSS counts them. 0 means no cap.
	MaxMemory int64
	// MaxString caps the strings an expression may make (cat, +, ...), in
	// bytes: a longer one stops the evaluation with an error wrapping
	// ErrStringTooLong. 0 means MaxString, the store's longest name; more
	// than that is read as MaxString too (such a string could not be
	// stored).
	MaxString int
	// BaseOnly makes an Engine read only the store's base facts, ignoring
	// the derived facts a previous Infer stored: link prediction scores
	// rules on the graph as loaded (the eval command sets it).
	BaseOnly bool
	// Snapshot, if not nil, is the store's CSR snapshot (store.Store's
	// Snapshot, taken since the store last changed), which an Engine's
	// chain-rule fast path then shares instead of taking a copy of its own.
	Snapshot *store.Snapshot
	// LazyLoad makes Prepare check the program but leave the relations its
	// rules read to be loaded on first use. RuleScores reads chain rules
	// and rules with constants off the CSR snapshot, so for a file of mined
	// rules it never loads them: link prediction sets it to keep a second
	// copy of the graph, with hash indexes, out of memory.
	LazyLoad bool
	// Validated says that the caller validated the program
	// (datalog.Validate reported no error, as rulefile.Load does) and has
	// not changed it since: preparing it for queries does not validate it
	// again, which on a mined file of 700,000 rules is over a second. Its
	// predicates' arities are still checked against the store.
	Validated bool
	// Choice gives relations choice domains, as Soufflé's `.decl r(x, y)
	// choice-domain x`: per predicate, its keys (each a list of argument
	// positions). A tuple is added to such a relation only when no tuple
	// of it has the same values at the positions of any key: the first
	// derived wins, in the evaluation's order, which is the same for every
	// number of threads (program facts first, then each round's
	// candidates in the order of the rules and of their first atoms'
	// tuples). Base facts of the store are not checked, but they take
	// their keys: no program fact or derived tuple shares them.
	Choice map[string][][]int
	// Subsume removes dominated tuples from recursive relations as
	// Soufflé's subsumption `r(x) <= r(y) :- body.` does, round by round
	// (subsume.go): per relation, the predicate of its domination rules,
	// rules of the program `D(x) :- r(x), r(y), body, x != y.` (the
	// dominated atom first). After each round of the relation's stratum,
	// its new tuples dominated by a tuple of it are dropped, then the
	// tuples of it that a new one dominates are removed (confidence 0),
	// so that no rule reads them from then on. Which tuples a removed one
	// derived before it went depends, as in Soufflé, on the order of
	// evaluation; what is left is dominated by nothing.
	Subsume map[string]string
	// Limit bounds relations as Soufflé's `.limitsize r(n=N)`: the
	// fixpoint of a recursive stratum stops after the first round that
	// leaves one of its relations with at least N tuples (a relation of a
	// stratum that is not recursive is evaluated whole).
	Limit map[string]int
	// Loaded, if not nil, is called by Evaluate with each store relation
	// once it has read its base facts into its own columns: the
	// evaluation reads them from the store no more (a store of facts read
	// once, such as `drumql run`'s inputs, may drop them then).
	Loaded func(rel store.ID)

	// The switches below are for tests, which run the same cases under
	// every combination; the zero value is what users get (every
	// optimisation on).

	// NoMagic evaluates queries with constants without the magic-set
	// rewrite: the relevant rules in full, then the answer rule.
	NoMagic bool
	// NoChain keeps Engine.Query off the chain-rule fast path.
	NoChain bool
	// NoFactor joins three-atom chain rules atom by atom instead of
	// factorised (factor.go).
	NoFactor bool
	// WalkAlways walks every end atom's delta of a factorised plan, and
	// walkNever none, instead of choosing by the delta (factor_walk.go).
	WalkAlways, WalkNever bool
	// NoShare gives each factorised plan a memo of its own, where the
	// plans of a round with the same last two atoms share one
	// (factor_share.go); for tests.
	NoShare bool
	// NoScanBound builds a factorised plan's memo with its weight alone,
	// not with the strongest of its scanned tuples too (factor_share.go);
	// for tests.
	NoScanBound bool
	// BatchItems is the number of first-step tuples a round merges at a
	// time (0: the package's BatchItems); for tests, whose rounds are
	// otherwise one batch.
	BatchItems int
	// NoRace evaluates a goal-directed query with the magic-set rewrite
	// alone, without racing it against the bottom-up evaluation.
	NoRace bool
	// Speculative marks an evaluation of QueryBest above the threshold:
	// its race gives the bottom-up evaluation no head start.
	Speculative bool
	// Work, when set, accumulates what evaluations did.
	Work *WorkCounters
	// WriteMemory, set by tests, replaces the measure of the memory in use
	// while the derived facts are counted and stored.
	WriteMemory func() int64
}

// WorkCounters counts the work of evaluations, for tests that assert that
// an optimisation ran or saved work. Safe for concurrent use.
type WorkCounters struct {
	Derived atomic.Int64 // facts derived by query evaluations (program facts included)
	Joins   atomic.Int64 // joins and loaded tuples of query evaluations (evaluator.work)
	Reads   atomic.Int64 // tuples the joins of query evaluations tried (evaluator.reads)
	// InferJoins and inferDerived are the same for Infer.
	InferJoins, InferDerived atomic.Int64
	// InferCands counts the candidate facts Infer merged (outBuf records).
	InferCands atomic.Int64
	// InferProbes counts the lookups of derived facts in their relation
	// that Infer's workers made before buffering them.
	InferProbes atomic.Int64
	// InferDeltas counts the delta tuples Infer's rounds joined.
	InferDeltas atomic.Int64
	// InferReads counts the tuples Infer's joins tried.
	InferReads atomic.Int64
	// InferMemoBuilds counts the values of V1 whose far ends the memos of
	// Infer's factorised plans built (factor.go).
	InferMemoBuilds atomic.Int64
	Evaluations     atomic.Int64 // query evaluations through the evaluator
	Chain           atomic.Int64 // queries answered by the chain fast path
	// Modes counts the query evaluations by how queryUnit evaluated them.
	Modes [ModeRaceBottomUp + 1]atomic.Int64
}

// QueryMode says how queryUnit evaluates a query.
type QueryMode int

const (
	// ModePlain: the relevant rules as written, then the answer rule (no
	// symbol constant, magic sets off, or q's predicate has no rules).
	ModePlain QueryMode = iota
	// ModeMagic: the magic-set rewrite.
	ModeMagic
	// ModeShared: the magic-set rewrite in which every goal of a
	// predicate that is also demanded with all arguments free reads that
	// all-free goal (see queryUnit).
	ModeShared
	// ModeBottomUp: the cost check found that the rewrite would compute
	// every relation it adorns in full; the relevant rules as written,
	// then the answer rule.
	ModeBottomUp
	// ModeRaceBottomUp: the rewrite (modeMagic or modeShared) raced
	// against the bottom-up evaluation, and the bottom-up one finished
	// first (see raceQuery).
	ModeRaceBottomUp
)

// Default option values.
const (
	// Exact is the threshold of an exact evaluation, the smallest positive
	// float64: only a confidence that underflowed to 0 is dropped, which
	// max-product needs to terminate on a cyclic program.
	Exact = math.SmallestNonzeroFloat64
	// RankMin is the threshold that link prediction (eval) applies rules
	// with: weak rules still rank candidates that no strong rule reaches.
	RankMin         = 1e-4
	DefaultMaxFacts = 50_000_000
)

// EvalStats reports what an evaluation did (Options.Stats).
type EvalStats struct {
	// Min is the threshold the evaluation applied.
	Min float64
	// WeakRules is the number of rules left out because their weight is
	// below Min (they derive nothing Min keeps).
	WeakRules int
	// Cut is the number of derivations (and, in a goal-directed query,
	// demands) dropped because their confidence fell below Min (a join
	// step that stops at the first too weak tuple of a chain ordered by
	// confidence counts the rest of the chain, unread). Every
	// answer, derived fact or proof that the threshold removed is behind
	// one of them or behind a weak rule; 0 for both means the result is
	// that of an exact evaluation.
	Cut int64
}

// WithProgram resolves a zero Min to prog's threshold.
func (o Options) WithProgram(prog *datalog.Program) Options {
	if o.Min <= 0 && prog != nil {
		if m, ok := prog.Threshold(); ok {
			o.Min = m
		}
	}
	return o
}

// WithDefaults returns o with its zero fields set to their defaults.
func (o Options) WithDefaults() Options {
	if o.Min <= 0 {
		o.Min = Exact
	}
	if o.MaxFacts <= 0 {
		o.MaxFacts = DefaultMaxFacts
	}
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	return o
}

// Errors returned by the reasoner; they are wrapped with context.
var (
	// ErrTooManyFacts is returned when an evaluation would derive more than
	// Options.MaxFacts facts.
	ErrTooManyFacts = errors.New("reasoner: too many facts")
	// ErrMemoryLimit is returned when an Infer would hold more memory than
	// Options.MaxMemory.
	ErrMemoryLimit = errors.New("reasoner: memory limit reached")
	// ErrUnknownPredicate is returned for a query or an explanation over a
	// predicate that neither the store nor the program knows.
	ErrUnknownPredicate = errors.New("reasoner: unknown predicate")
	// ErrUndefinedPredicate is what CheckQuery returns, with a warning
	// diagnostic, for a query over a predicate that nothing defines and
	// that is not a likely typo of one that something does: Query, Count,
	// QueryFunc and Engine.Query answer it with nothing (and Explain with
	// ErrNoProof).
	ErrUndefinedPredicate = errors.New("reasoner: undefined predicate")
	// ErrNotGround is returned by Explain for an atom with variables.
	ErrNotGround = errors.New("reasoner: atom is not ground")
	// ErrNoProof is returned by Explain for a fact that does not hold.
	ErrNoProof = errors.New("reasoner: no proof")
	// ErrInvalidProgram is returned for a program with errors (the
	// diagnostics are joined to it).
	ErrInvalidProgram = errors.New("reasoner: invalid program")
)

// InferStats reports what Infer did.
type InferStats struct {
	// Derived is the number of derived facts per predicate (program facts
	// included), by predicate name.
	Derived map[string]int
	// Facts is the total number of derived facts written.
	Facts int
	// Iterations is the number of semi-naive rounds over all strata.
	Iterations int
	// Strata is the number of strata evaluated.
	Strata int
	// Duration is the wall-clock time of the call.
	Duration time.Duration
	// Eval is what the threshold did (see EvalStats).
	Eval EvalStats
}

// MemoryLimitError is the error of an Infer stopped by Options.MaxMemory;
// it wraps ErrMemoryLimit.
type MemoryLimitError struct {
	InUse, Cap    int64 // bytes held when the check failed (with what the next tuples would allocate), and the cap
	Rounds, Facts int   // rounds begun and facts derived by then
	// Writing is set when the cap was exceeded while the derived facts
	// were being stored (the fixpoint was done).
	Writing bool
}

// Error says how much memory was held, when, and the cap.
func (e *MemoryLimitError) Error() string {
	if e.Writing {
		return fmt.Sprintf("%v: %s in use storing the %d facts derived, above the cap of %s",
			ErrMemoryLimit, formatBytes(e.InUse), e.Facts, formatBytes(e.Cap))
	}
	return fmt.Sprintf("%v: %s needed in round %d with %d facts derived, above the cap of %s",
		ErrMemoryLimit, formatBytes(e.InUse), e.Rounds, e.Facts, formatBytes(e.Cap))
}

// Unwrap returns ErrMemoryLimit.
func (e *MemoryLimitError) Unwrap() error { return ErrMemoryLimit }

// Phase is the stage of an Infer that a Progress report is about.
type Phase int

// The phases of Infer.
const (
	// PhaseDerive is the fixpoint: rounds of rule applications.
	PhaseDerive Phase = iota
	// PhaseWrite is the write of the derived facts to the store.
	PhaseWrite
)

// Progress is what Infer reports as it goes (Options.Progress).
type Progress struct {
	// Phase is the stage the report is about. In PhaseDerive a report
	// comes after each round and, in a long round, about once a second.
	Phase Phase
	// Rounds is the number of semi-naive rounds so far, over all strata.
	Rounds int
	// Facts is the number of facts derived so far (program facts
	// included); in PhaseWrite, the final number.
	Facts int
	// Written and Total are, in PhaseWrite, the facts stored so far and
	// the facts to store.
	Written, Total int
	// Memory is the memory the process holds, in bytes: the Go runtime's
	// and the resident pages of mapped files (what Options.MaxMemory is
	// compared with).
	Memory int64
	// Joins is the evaluation's work so far: joins and loaded tuples
	// (the unit of the work-bound tests).
	Joins int64
	// Elapsed is the time since Infer started.
	Elapsed time.Duration
	// Batches is the wall time of the parallel batches of the rounds so
	// far, and Busy the time their workers spent in tasks: Busy over
	// Batches is the cores the batches kept busy (up to Options.Threads;
	// below it, a worker waited at a batch's end for the last task).
	Batches, Busy time.Duration
}

// Answer is one answer to a query.
type Answer struct {
	// Values are the bindings of the query's distinct variables, in order of
	// first appearance (empty for a ground query).
	Values []string
	// Confidence is the confidence of the best derivation.
	Confidence float64
	// Fact is the answer as a ground atom.
	Fact datalog.Atom
	// Proof is the best proof, when Options.Explain is set.
	Proof *Proof
}

// Proof is the best derivation of a fact, as a tree down to base facts.
type Proof struct {
	// Fact is the printed ground atom.
	Fact string
	// Confidence is the fact's confidence.
	Confidence float64
	// Rule is the printed rule (or program fact) that derived the fact;
	// empty for a base fact.
	Rule string
	// Pos is the source position of Rule.
	Pos datalog.Pos
	// Weight is the weight of Rule (1 for a base fact).
	Weight float64
	// Base is set for a base fact of the store.
	Base bool
	// Negated marks the factor of a negated body literal `not p(...)` that
	// matched a fact: Fact is "not " and the matching fact with the highest
	// confidence c, Confidence is 1 - c, and the one child is the proof of
	// that fact. A negated literal that matched nothing (factor 1) has no
	// node.
	Negated bool
	// Aggregate marks the value of an aggregate of the rule: Fact is the
	// aggregate with its grouping variables' values and its value
	// (`count : { e(a, _) } = 2`), Confidence the lowest confidence of the
	// solutions it aggregated (1 when none); it has no children.
	Aggregate bool
	// Children are the proofs of the rule's positive body facts, in body
	// order, then the factors of its negated literals that matched a fact
	// (Negated nodes), in body order, then the rule's aggregates
	// (Aggregate nodes), in body order; for a Negated node, the proof of the
	// fact it negates.
	Children []*Proof
}

// RuleScore is the confidence one rule gives a candidate (EachRuleHit).
type RuleScore struct {
	// Rule is the rule's index into the program's rules.
	Rule int32
	// Score is the rule's weight times its best body derivation.
	Score float64
}

// RuleHit is the evidence rules give for one candidate entity.
type RuleHit struct {
	// Candidate is the entity's name.
	Candidate string
	// ID is the entity's symbol id.
	ID store.ID
	// Scores are the confidences contributed by each rule, descending.
	Scores []float64
	// Rules are the indices (into the program's rules) of the rules behind
	// Scores, parallel to it.
	Rules []int
}
