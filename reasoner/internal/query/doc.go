// Package query answers queries over a store and a program: Query, Count,
// QueryFunc and Explain (checked, then answered from the store alone when
// the program is empty, else by goal-directed evaluation), and the Engine,
// a program prepared once for many queries and for link prediction: the
// chain fast path (frontier propagation over the store's snapshot, rules
// sharing body prefixes in a trie), rules with constants, the other rules
// compiled once per head, and the weighted walks over a stored fixpoint
// that rule combination reads.
//
// Answers are sorted by confidence, descending, then by values, and never
// depend on scheduling or Options.Threads. The contract is package
// reasoner's documentation, which re-exports Query, Count, QueryFunc,
// Explain, Prepare and the Engine; this package is internal and its other
// exported names are not public API.
package query
