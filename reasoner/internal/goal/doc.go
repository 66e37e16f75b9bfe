// Package goal is the reasoner's goal-directed evaluation of a query: the
// magic-set rewrite of the rules a query depends on (sideways information
// passing, weighted demand, supplementary relations, widened goals), the
// choice of a query's evaluation (the rewrite, the bottom-up evaluation of
// the strata it depends on, or the rewrite sharing the all-free goals: see
// QueryUnit), and the race of the rewrite against the bottom-up evaluation
// by counted work (RunQuery).
//
// Every choice gives the same answers and confidences, up to the order in
// which a derivation's product was taken, and the choice and the race's
// schedule depend on the program, the query and the data only, never on
// time or Options.Threads. The contract is package reasoner's documentation
// (Evaluation); this package is internal and its exported names are not
// public API.
package goal
