// Package storetest is a conformance suite for store.Store implementations:
// Run checks one implementation against the documented semantics,
// RunChangeLogCap the change log's cap (with a cap a test reaches), and
// Dump renders a store's whole visible state so two implementations can
// be compared.
//
// The store package runs the suite against both the Badger-backed DB and the
// in-memory Mem, and a differential test compares the two with Dump after
// the same random operations.
package storetest
