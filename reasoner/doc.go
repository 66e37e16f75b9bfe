// Package reasoner evaluates weighted Datalog programs over a store: it
// materialises what a program derives ([Infer]), answers queries ([Query],
// [Engine.Query]), explains answers ([Explain]) and applies rules for link
// prediction ([Engine.RuleScores]).
//
// Two packages build on it: [github.com/drumql/drumql/reasoner/maintain]
// keeps a materialisation up to date as facts and rules change, and
// persists it; [github.com/drumql/drumql/reasoner/combine] scores answers
// by noisy-or over their rules and finds a query's n best answers. The
// evaluator itself lives in internal packages, of which this package is the
// public face.
//
// # Semantics
//
// Base facts of the store have confidence 1; a program fact has its weight.
// Weights are in (0, 1]: a rule or fact written without one has weight 1,
// and a program with a weight outside (0, 1] (0 included) is rejected with
// an error wrapping [ErrInvalidProgram]. A rule instance yields the rule's
// weight times the product of its positive body facts' confidences; several
// derivations of one fact combine with max (the max-product, or Viterbi,
// semiring), so every fact has one best proof.
// Derivations below the threshold are dropped: [Options.Min] when set,
// else the program's own (its `@min` directive, the smallest when merged
// files give several; see datalog.Program.Threshold), else [Exact], which
// drops only a confidence that underflowed to 0: a hand-written program
// means what it says. A rule whose weight is below the threshold derives
// nothing kept, so it is left out of the evaluation (a mined file's weak
// rules through hub relations would otherwise still cost a scan each round
// and, in a goal-directed query, demand most of the graph). What the
// threshold cut, derivations and rules, is counted ([EvalStats]), so that
// the command line can say so: nothing is dropped silently.
//
// Negation is stratified and graded, 1 - confidence: a negated literal
// `not p(...)` multiplies the derivation by 1 - c, where c is the highest
// confidence of a fact of p matching the literal's bound arguments (0 when
// none matches; facts below Min are not kept, so they count as absent). A
// certain fact (c = 1) blocks the derivation, as in plain Datalog; a weak
// one only lowers it. This is the probability that p is false were p's
// confidence its probability; it needs no threshold, and stratification
// keeps the fixpoint monotone, since p is final before any rule reads
// `not p`. The matched fact is part of the provenance: a proof shows it as
// a node "not p(...)" with confidence 1 - c over p's proof
// ([Proof.Negated]).
//
// # Constants
//
// Every value is a symbol of the store, identified by its name; a value is
// also a number when its name is written as a number of the dialect
// (-?digits[.digits][e[+-]digits]: 7, 007, 7.0, 1.50, 15e-1, but not +7,
// 1.5x or inf), with that number's value as a float64. In a program or a
// query an unquoted number (7, 007, 1.50) is a number constant; a name or a
// quoted string ("7", "1.50") is a symbol constant, never a number.
// Comparisons (= != < <= > >=) compare two operands numerically when both
// are numbers (a number constant, or a value that is a number), and by name
// otherwise (byte order of the names; a number constant's name is its
// canonical text, 1.50 is "1.5"). A constant argument of an atom matches
// exactly the values it equals under =: `p(X, 1.5)` and
// `p(X, Y), Y = 1.5` both match stored values 1.5, 1.50 and 15e-1, and
// `p(X, "7")` and `Y = "7"` match the value named 7 only, not 007. A
// variable shared between atoms joins identical symbols: 007 and 7 are two
// symbols, equal under = but not joined. A number constant in a rule head
// or a program fact writes the number's canonical text (007 is 7, 1.50 is
// 1.5). Goal-directed evaluation binds number constants as it binds
// symbols: the demand for a number is every symbol of the store equal to it
// (7, 007 and 7.0 for 7), and it stays a filter in the rules.
//
// # Evaluation
//
// There is one evaluator. Each rule is compiled into a plan: variables to
// slots, constants to symbol ids (constants the store does not know get
// local ids beyond the store's range, so they match nothing of the store
// and are never written to it, except by Infer for the facts it derives),
// body literals ordered greedily (in a semi-naive round the delta literal
// first; then, at each step, the positive literal with all arguments bound,
// else one with some bound argument, ties going to a magic guard, then to
// the relation with fewer tuples, then to more bound arguments, then to
// body order; negations, comparisons and built-in tests as soon as what
// they read is bound, and equalities that assign a variable as soon as
// their other side is: see makePlan), and an index per atom: an exact
// lookup, a hash index over the bound argument positions built lazily (its
// chains ordered by confidence when the relation is weighted), or a full
// scan. Relations live in memory as packed uint32 tuples in chunks (full
// chunks are never copied) with open-addressing hash indexes. Each stratum
// is evaluated semi-naively: every round joins the delta of the
// previous round (the new facts and those whose confidence strictly rose)
// with the full relations, in parallel over slices of the delta, and merges
// the candidate facts in a fixed order, so results never depend on
// scheduling or on [Options.Threads].
//
// A round's delta is split by value for the rules whose delta literal has a
// constant, and cut by confidence: a mined program's hundreds of rules
// with constants per relation read only the delta tuples with their
// constant, and no rule reads a delta tuple that its weight would take
// below the threshold.
//
// Rules that can derive nothing are left out of every evaluation: a rule
// one of whose positive literals is over a relation with no facts (in the
// store or the program) that no live rule derives. A mined file applied to
// a graph that lacks some of its relations has thousands.
//
// A query `q` is the answer rule `ans(vars) :- q` evaluated with the rules
// q depends on. The rules are rewritten with magic sets (sideways
// information passing: the positive literal with the most bound arguments
// first), so that the work is proportional to what the constants reach:
// the query's, and those of the rules' bodies (`goal() :- path(1, 9)` for
// goal()?). Magic facts do not change the confidences of what they guard,
// so max-product answers are those of the full evaluation; but they are
// weighted: a magic fact's confidence bounds what any fact demanded
// through it can contribute to an answer (the product of the weights and
// body confidences on the way from the query), and a demand below the
// threshold is dropped like a derivation below it, and a rule never tries
// a magic fact too weak for its weight. Without that, the demand of a
// mined program's weak rules reached nearly every pair of entities. A
// literal with a bound variable and a constant, b(X, c) with X bound,
// demands b with X alone bound when the rewrite demands that goal anyway
// (a chain rule reading b(X, Y)), and keeps the facts with c: a demand per
// value of X and constant made a mined file's magic sets of millions of
// pairs (see magicBuilder.widened). A magic rule whose body would hold
// the guard and two literals or more reads a supplementary relation of
// the bindings of all but the last, projected on the variables the rest
// of the rule reads and shared by the rules with the same prefix: a chain
// rule's demand for its last atom then joins a hub once, not once per
// path through it (see magicBuilder.supplementary).
//
// Which evaluation is cheaper, the rewrite or the bottom-up evaluation of
// the strata q depends on, depends on the data: a constant of a small
// community of a large graph against a mined program whose demand reaches
// everything. A query with a constant runs both in turns, one at a time,
// by work counted in joins, loaded tuples and rewritten rules (never
// time), the bottom-up one first with a head start; the first to finish
// answers. The query then costs at most twice the cheaper of the two plus
// the head start, and the schedule, hence the result, depends on the
// program, the query and the data only. Queries whose arguments are all
// variables are not raced: they ask for whole relations. A confidence is
// the product of its derivation's weight and body confidences in the order
// the join took them, and the two evaluations may join a body in different
// orders: the same answer's confidence may then differ between them in its
// last bits (never between two runs of one, which are deterministic).
// Predicates used under negation by the relevant rules are evaluated in
// full, with everything they depend on, which keeps the rewritten program
// stratified.
//
// A goal with no argument bound (p_ff, demanded for instance by a rule with
// a constant such as `h(X, c) :- b(X, _)` once h(X, c) is asked for)
// computes all of its predicate. So, when it does not race (a query with
// no constant, whose rules' constants may still demand little), the
// reasoner finds
// the goals the rewrite would demand: when every predicate it would adorn
// has an all-free goal, the rewrite would compute every relation the query
// depends on in full, plus restricted copies of them and their magic sets,
// and the query is evaluated bottom-up over the strata it depends on and
// filtered instead. That is the case of mined programs, where every
// relation's rules read the others and rules with constants are many: on
// them the magic sets of goals with both arguments bound grow to nearly
// every pair of entities, much more than the model. Otherwise the goals of
// a predicate that has an all-free goal all read that one, and the other
// predicates stay goal-directed. The choice depends on the program and the
// query only, and every choice gives the same answers and confidences.
//
// The n best answers (combine.QueryBest, `query --top N`) are found at
// falling thresholds: 1 (by max), 1/2, 1/4, then the square of the last,
// down to the program's. Under max-product an evaluation at a threshold
// keeps every derivation at or above it, hence every fact's best one, so
// the answers it finds at or above the threshold are those of any lower
// one, with the same confidences: once n of them are known, no other can
// come first, and the weaker rules, longer chains and wider demand of the
// lower thresholds are never evaluated. Noisy-or over each answer's k best
// rules is decided when the n best scores are exact (k rules known, or the
// best derivation above what unknown rules could add) and every other
// answer's bound, with its unknown rules at the threshold, is below them.
// The passes above the program's threshold race without the bottom-up head
// start (their cost adds to the answer's), and a program that reads a
// negated literal or an aggregate from the query down is evaluated at its
// own threshold only: a cut fact can make `not p` stronger.
//
// # Provenance
//
// Infer stores with every derived fact the body facts of its best
// derivation and a rule reference "file<TAB>line<TAB>col<TAB>weight<TAB>text"
// (text is the printed rule, or the program fact for a program fact); Explain
// reads it back when it is given no program.
//
// # Link prediction
//
// [Engine.RuleScores] applies the rules of one binary head predicate to a
// given entity and reports, per candidate, the confidence each rule gives.
// Chain rules over base relations (`h(A, B) :- p1(A, C1), p2(C1, C2), ...,
// pk(Ck-1, B)`, arguments in any order) are evaluated by frontier
// propagation over the store's CSR snapshot, sharing common body prefixes
// between rules in a trie. Rules over auxiliary predicates (defined by
// rules, with no base facts: a hand-written `parent`, or a relation of the
// graph a mined file was mined on that this graph lacks) read what the
// program derives for them, materialised once per engine at the program's
// threshold; those rules and the others that neither fast path takes are
// compiled once per head, with the given entity a constant each call
// patches, and applied as joins.
package reasoner
