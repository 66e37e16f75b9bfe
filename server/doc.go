// Package server is `drumql serve`: one process that keeps the store open,
// the program loaded and its materialisation in memory, and answers a JSON
// API under /v1 (queries, proofs, the rules and their edits, base fact
// edits, statistics), Prometheus metrics at /metrics and a web page at /.
//
// The web page (server/web: plain HTML, CSS and JavaScript embedded in the
// binary, assets under /static/) is a client of the API like any other: a
// query box and its answers, proof trees, the rules by head relation, rule
// edits and base fact edits, with their errors and the facts they changed.
//
// Edits go through the reasoner's incremental maintenance
// (maintain.Materialisation.Apply) and are written to the store with
// WriteUpdate before the answer is sent. Updates are serialised (one
// writer at a time); reads never wait for them.
//
// Versions. Every request reads one version: the store as an update
// committed it (a store.Viewer read view: for Badger, a read transaction
// opened at the commit), the program, the threshold of its derived facts,
// the rule files' lines, and what queries prepare over them (the query
// checker, the policy, the noisy-or rescoring). A version is immutable;
// the current one is an atomic pointer that a committed update replaces
// (publish), 1 at start and one more per update; a failed or rolled-back
// update publishes nothing. A reader holds its version (a reference count)
// until its answer is read out, then writes it: a slow client holds no
// version. The last holder of a replaced version closes its view.
//
// What readers see during an update: the version before it, whole. The
// materialisation in memory is one, changed in place by the writer (no
// second copy: memory stays that of one materialisation); it answers
// lookups for the version it holds while no update changes it, and a
// reader that finds it busy or newer reads its version's store view
// instead, with the same answers. The store keeps, for the open views,
// the old versions of the keys an update replaces; a derived generation
// replaced whole is dropped once no view reads it (store.Viewer), so an
// update that recomputes the derived facts needs their size on disk twice
// while readers of the version before remain. Answers name their version
// in the headers ETag and Drumql-Version, and the objects that answer
// reads in a "version" field.
//
// The JSON objects of answers, proofs, rules and changes are package wire's:
// drumql query and explain write the same objects with --format json.
//
// The server brings a store's derived facts up to date with a program as
// `drumql infer` does, with maintain.Catchup.
package server
