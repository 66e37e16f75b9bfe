// Package reasoner evaluates weighted Datalog programs over a store: it
// materialises what a program derives ([Infer]), answers queries ([Query],
// [Engine.Query]), explains answers ([Explain]) and applies rules for link
// prediction ([Engine.RuleScores]).
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
// Derivations below [Options.Min] are dropped, so a rule whose weight is
// below Min derives nothing: it is left out of the evaluation (a mined
// file's weak rules through hub relations would otherwise still cost a
// scan each round and, in a goal-directed query, demand most of the
// graph).
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
// 1.5). Goal-directed evaluation binds symbol constants only: a number
// constant in a query or a rule body is a filter.
//
// # Evaluation
//
// There is one evaluator. Each rule is compiled into a plan: variables to
// slots, constants to symbol ids (constants the store does not know get
// local ids beyond the store's range, so they match nothing of the store
// and are never written to it, except by Infer for the facts it derives),
// body literals ordered greedily (most bound arguments first, then the
// smaller relation; negations and comparisons as soon as their variables
// are bound), and an index per atom: an exact lookup, a hash index over the
// bound argument positions built lazily, or a full scan. Relations live in
// memory as packed uint32 tuples in fixed-size chunks (appending never
// copies) with open-addressing hash indexes. Each
// stratum is evaluated semi-naively: every round joins the delta of the
// previous round (the new facts and those whose confidence strictly rose)
// with the full relations, in parallel over slices of the delta, and merges
// the candidate facts in a fixed order, so results never depend on
// scheduling or on [Options.Threads].
//
// A query `q` is the answer rule `ans(vars) :- q` evaluated with the rules
// q depends on. When q has a constant, the rules are rewritten with magic
// sets (sideways information passing: the positive literal with the most
// bound arguments first), so the work is proportional to what the
// constants reach. Magic predicates are crisp filters: they do not change
// confidences, so max-product answers are those of the full evaluation.
// Predicates used under negation by the relevant rules are evaluated in
// full, with everything they depend on, which keeps the rewritten program
// stratified.
//
// A goal with no argument bound (p_ff, demanded for instance by a rule with
// a constant such as `h(X, c) :- b(X, _)` once h(X, c) is asked for)
// computes all of its predicate. So, before it rewrites, the reasoner finds
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
// between rules in a trie; other rules go through the evaluator,
// goal-directed.
package reasoner
