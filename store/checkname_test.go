package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestCheckName: the names a load refuses, and a load of such a name
// through a batch (as POST /v1/facts loads) fails without storing it.
func TestCheckName(t *testing.T) {
	for _, c := range []struct {
		name string
		want error
	}{
		{"alice", nil},
		{"", ErrBadName},
		{strings.Repeat("x", MaxNameLen+1), ErrNameTooLong},
		{"a\xffb", ErrBadName},
		{"a\x00b", ErrBadName},
	} {
		err := CheckName(c.name)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("CheckName(%.20q) = %v, want %v", c.name, err, c.want)
		}
		if err != nil && len(err.Error()) > 200 {
			t.Errorf("message of %d bytes", len(err.Error()))
		}
	}
	st := NewMemory()
	for _, bad := range []string{"a\x00b", "a\xffb"} {
		if _, err := st.Load(context.Background(), &Batch{Graph: []NamedTriple{{S: bad, R: "r", O: "o"}}}, nil); !errors.Is(err, ErrBadName) {
			t.Errorf("Load(%q) = %v, want ErrBadName", bad, err)
		}
	}
	if n, err := st.NumSymbols(); err != nil || n != 0 {
		t.Errorf("%d symbols after refused loads (%v)", n, err)
	}
}
