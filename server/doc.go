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
// WriteUpdate before the answer is sent. Updates are serialised and readers
// never see a half-applied update: one sync.RWMutex guards the store and
// the materialisation, queries take it for reading and updates for
// writing. A reader's answer is read out under the lock and written after
// it, so that a slow client holds up no update.
//
// The JSON objects of answers, proofs, rules and changes are package wire's:
// drumql query and explain write the same objects with --format json.
//
// The server brings a store's derived facts up to date with a program as
// `drumql infer` does, with maintain.Catchup.
package server
