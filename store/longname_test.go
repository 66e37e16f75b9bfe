package store

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
)

// Names up to MaxNameLen (1 MiB) are stored, found, kept across a reopen
// and verified; the dictionary's index key of a long one is its digest,
// and a rolled-back load removes it.
func TestLongNames(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	ctx := context.Background()
	long := strings.Repeat("ab", MaxNameLen/2) // exactly MaxNameLen bytes
	mid := strings.Repeat("é", maxKeyName/2+1) // just over the key limit
	short := strings.Repeat("x", maxKeyName)   // indexed as it is
	b := &Batch{Graph: []NamedTriple{{S: long, R: "r", O: mid}, {S: short, R: "r", O: long}}}
	if _, err := db.Load(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Load(ctx, &Batch{Graph: []NamedTriple{{S: long + "x", R: "r", O: "a"}}}, nil); !errors.Is(err, ErrNameTooLong) {
		t.Errorf("a name of MaxNameLen+1 bytes: %v, want ErrNameTooLong", err)
	}
	id, err := db.Intern(strings.Repeat("c", MaxNameLen))
	if err != nil {
		t.Fatalf("Intern of a 1 MiB name: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = mustOpen(t, dir)
	defer db.Close()
	for _, name := range []string{long, mid, short, strings.Repeat("c", MaxNameLen)} {
		i, ok, err := db.Lookup(name)
		if err != nil || !ok {
			t.Fatalf("Lookup of a %d-byte name after reopening: %v, %v", len(name), ok, err)
		}
		if got, err := db.Name(i); err != nil || got != name {
			t.Errorf("Name(%d) = %d bytes, %v; want %d bytes", i, len(got), err, len(name))
		}
	}
	if i, _, _ := db.Lookup(strings.Repeat("c", MaxNameLen)); i != id {
		t.Errorf("the interned name has id %d after reopening, %d before", i, id)
	}
	if _, err := db.Verify(ctx); err != nil {
		t.Errorf("Verify: %v", err)
	}
	before, err := db.rawDump()
	if err != nil {
		t.Fatal(err)
	}
	hashed := 0
	for k := range before {
		if k[0] == tagName && len(k) > 1 && k[1] == 0xff {
			hashed++
		}
		if len(k) > maxKeyName+1 {
			t.Errorf("a key of %d bytes", len(k))
		}
	}
	if hashed != 3 {
		t.Errorf("%d name keys by digest, want 3 (the names over %d bytes)", hashed, maxKeyName)
	}
	cctx, cancel := context.WithCancel(ctx)
	_, err = db.Load(cctx, &Batch{Graph: []NamedTriple{{S: strings.Repeat("d", MaxNameLen), R: "r", O: "e"}}}, func(done, total int) {
		if done == total {
			cancel()
		}
	})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Load = %v, want context.Canceled", err)
	}
	after, err := db.rawDump()
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(before, after) {
		t.Errorf("the rolled-back load left %d keys, %d before", len(after), len(before))
	}
}
