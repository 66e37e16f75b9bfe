package tsv

import "testing"

// TestNULRefused: a NUL byte in a field is an error at its column, as the
// store refuses such a name (store.CheckName).
func TestNULRefused(t *testing.T) {
	_, err := ParseLine("a\tr\tb\x00c")
	if err == nil || err.Reason != "a NUL byte" || err.Col != 6 {
		t.Fatalf("got %+v, want a NUL byte at col 6", err)
	}
}
