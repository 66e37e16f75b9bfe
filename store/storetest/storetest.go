package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drumql/drumql/store"
)

// Run runs the conformance suite. open must return a new, empty store for
// each call; Run closes it.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Interning", testInterning},
		{"LoadAndScans", testLoadAndScans},
		{"ExactLookups", testExactLookups},
		{"Splits", testSplits},
		{"NaryFacts", testNary},
		{"IdempotentReload", testIdempotentReload},
		{"CanceledLoadLeavesStoreUnchanged", testCanceledLoad},
		{"EmptyBatch", testEmptyBatch},
		{"Derived", testDerived},
		{"DerivedCanceledReplaceKeepsPrevious", testDerivedCanceled},
		{"DerivedDuplicatesKeepBest", testDerivedDuplicates},
		{"DerivedSeqStreamsWithReusedBuffers", testDerivedSeq},
		{"DerivedSeqFailureKeepsPrevious", testDerivedSeqFailure},
		{"RecordWriteKinds", testRecordWriteKinds},
		{"ChangeLogLoads", testChangeLogLoads},
		{"Retract", testRetract},
		{"RetractCanceledChangesNothing", testRetractCanceled},
		{"ChangeLogRetract", testChangeLogRetract},
		{"UpdateDerived", testUpdateDerived},
		{"UpdateDerivedInvalidChangesNothing", testUpdateDerivedInvalid},
		{"UpdateDerivedNewRules", testUpdateDerivedRules},
		{"UpdateDerivedLarge", testUpdateDerivedLarge},
		{"UpdateDerivedCanceledChangesNothing", testUpdateDerivedCanceled},
		{"Snapshot", testSnapshot},
		{"EarlyBreak", testEarlyBreak},
		{"Closed", testClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			closed := false
			t.Cleanup(func() {
				if !closed {
					s.Close()
				}
			})
			tc.fn(t, s)
			if tc.name == "Closed" {
				closed = true
			}
		})
	}
}

// family is a small graph used by several tests.
var family = []store.NamedTriple{
	{S: "bob", R: "husband", O: "alice"},
	{S: "carl", R: "husband", O: "dana"},
	{S: "alice", R: "mother", O: "erin"},
	{S: "bob", R: "father", O: "erin"},
	{S: "alice", R: "mother", O: "frank"},
	{S: "dana", R: "mother", O: "alice"},
}

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func id(t *testing.T, s store.Store, name string) store.ID {
	t.Helper()
	v, ok, err := s.Lookup(name)
	if err != nil || !ok {
		t.Fatalf("Lookup(%q) = %v, %v, %v", name, v, ok, err)
	}
	return v
}

// collect drains a scan, failing the test on an error.
func collect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		out = append(out, v)
	}
	return out
}

// names renders facts as rel(a,b) strings.
func names(t *testing.T, s store.Store, fs []store.Fact) []string {
	t.Helper()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = FactString(s, f)
	}
	return out
}

// FactString renders f with symbol names, as rel(a,b).
func FactString(s store.Store, f store.Fact) string {
	name := func(id store.ID) string {
		n, err := s.Name(id)
		if err != nil {
			return fmt.Sprintf("#%d", id)
		}
		return n
	}
	args := make([]string, len(f.Args))
	for i, a := range f.Args {
		args[i] = name(a)
	}
	return name(f.Rel) + "(" + strings.Join(args, ",") + ")"
}

func load(t *testing.T, s store.Store, b *store.Batch) store.LoadStats {
	t.Helper()
	st, err := s.Load(context.Background(), b, nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return st
}
