// Package datalog holds drumql's Datalog abstract syntax tree and everything
// that works on it without I/O beyond the standard library: the canonical
// printer, canonical rule identity, validation (safety, arity, weights,
// ground facts, duplicates), stratification of negation, and the merge of
// mined rules into an expert program.
//
// # Dialect
//
//	% comments: % or // to end of line, /* block */
//	husband(bob, alice).                          % a fact, weight 1
//	0.9 :: husband(carl, dana).                   % an uncertain fact
//	wife(X, Y) :- husband(Y, X).                  % a hard rule (weight 1)
//	0.83 :: son(C, A) :- brother(A, B), mother(C, B).
//	single(X) :- person(X), not married(X, _).    % stratified negation
//	sibling(X, Y) :- parent(P, X), parent(P, Y), X != Y.
//	"/people/person/nationality"(X, Y) :- "/people/person/places_lived"(X, Z), located(Z, Y).
//	@import "kg/extra.tsv".
//	@aggregate max.                               % how link prediction ranks
//	@min 0.1.                                     % the threshold (mined files)
//	wife(X, alice)?                               % a query
//	next(X, Y) :- num(X), Y = X + 1.              % arithmetic, assignment
//	kids(P, N) :- person(P), N = count : { parent(P, _) }.  % an aggregate
//	label(X, L) :- person(X), L = cat("Dr ", X), match("Dr .*", L).
//	a(X), b(X) :- c(X) ; d(X).                    % several heads, disjunction
//
// Expressions ([Expr], in [Term]s of kind [Compound]) are arithmetic
// (+ - * / % ^, unary minus), the built-in functions of [Functions] and the
// aggregates of [Aggregators]; [Builtins] are tests written as body
// literals. Several heads and `;` are expanded by the parser into one rule
// each. docs/DIALECT.md gives their semantics: integers are
// exact (64 bits), other numbers float64; an aggregate counts the distinct
// matches of its body per group (the variables it shares with the rest of
// the rule), its confidence the lowest of theirs.
//
// Variables start with an uppercase (or titlecase) letter or an
// underscore. A lone `_` is the anonymous variable: every occurrence is a
// distinct variable. A name that starts with an underscore, such as
// `_Spouse`, is an ordinary named variable (all its occurrences in a rule
// are the same variable, and it follows the same safety rules) that is
// marked as deliberately unused: it never triggers the singleton-variable
// warning. Because of this, a constant or predicate whose name starts with
// an underscore (`"_also_see"`) must be quoted.
//
// Constants and predicate names are plain identifiers (a letter that is not
// uppercase, then letters, digits, combining marks and underscores:
// `alice`, `zoë`, `東京`; see [IsPlainName]), numbers (`-12`, `0.5`,
// `1e-05`; constants only), or double-quoted strings
// with the escapes \" \\ \n \t \r and \uXXXX. A zero-arity atom is written
// without parentheses (`rain.`). Weights (`w ::`) must lie in (0, 1]; a
// missing weight means 1.
//
// `@min X.` ([Threshold], X in (0, 1]) is the file's threshold: an
// evaluation of the program drops every derivation whose confidence is
// below X. `drumql mine` writes one into its files, whose hundreds of weak
// rules per head would otherwise, chained through each other, derive
// nearly every pair; a program without one is evaluated exactly. A file
// sets it once; merged files keep every directive and mean the smallest
// ([Program.Threshold]).
//
// # Printing and identity
//
// [Program.String], [Rule.String], [Atom.String] and [Term.String] print the
// canonical form: names are quoted exactly when needed (see [IsPlainName]),
// weight 1 is not printed, other weights use the shortest 'g' representation.
// Everything printed parses back to the same program (positions and rule
// comments aside). [Rule.Key] is a rule's identity: its canonical text with
// variables renamed in order of first occurrence, weight excluded.
//
// # Checking
//
// [Validate] reports every problem of a program in source order as
// [Diagnostics]; [Stratify] orders the rules for evaluation; [Merge] adds
// mined rules to an expert program and rejects those that would create a
// cycle through negation; [CheckQuery] checks a query against the
// predicates a store knows.
package datalog
