package reasoner_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// TestMaxString: a rule that doubles a string each round stops with
// ErrStringTooLong at Options.MaxString, or by default at the store's
// longest name (1 MiB), and the strings below the cap are stored, names
// of more than the old 32 KiB limit included.
func TestMaxString(t *testing.T) {
	ctx := context.Background()
	prog, err := parser.ParseString("grow.dl", `
grow("ab", 0).
grow(T, N + 1) :- grow(S, N), T = cat(S, S).
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		max, longest int // Options.MaxString; the longest string made
	}{{0, 1 << 20}, {100, 64}, {1 << 16, 1 << 16}} {
		st := store.NewMemory()
		_, err := reasoner.Infer(ctx, st, prog, reasoner.Options{MaxString: c.max})
		if !errors.Is(err, reasoner.ErrStringTooLong) {
			t.Fatalf("MaxString %d: %v, want ErrStringTooLong", c.max, err)
		}
		limit := c.max
		if limit == 0 {
			limit = store.MaxNameLen
		}
		if !strings.Contains(err.Error(), "a string of "+strconv.Itoa(2*c.longest)+" bytes, longer than the limit of "+strconv.Itoa(limit)) {
			t.Errorf("MaxString %d: %v", c.max, err)
		}
		prog2, err := parser.ParseString("grow.dl", `
grow("ab", 0).
grow(T, N + 1) :- grow(S, N), strlen(S) <= `+strconv.Itoa(c.longest/2)+`, T = cat(S, S).
`)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := reasoner.Infer(ctx, st, prog2, reasoner.Options{MaxString: c.max}); err != nil {
			t.Errorf("MaxString %d, strings up to %d bytes: %v", c.max, c.longest, err)
		}
		if _, ok, err := st.Lookup(strings.Repeat("ab", c.longest/2)); !ok || err != nil {
			t.Errorf("MaxString %d: the string of %d bytes is not stored (%v)", c.max, c.longest, err)
		}
		st.Close()
	}
}
