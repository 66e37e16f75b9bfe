package store

import (
	"context"
	"errors"
	"testing"
)

// Wrapped sentinels name the package once: "store: load: closed", not
// "store: load: store: closed"; errors.Is still finds the sentinel.
func TestErrorsNameStoreOnce(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	db.Close()
	_, err := db.Load(context.Background(), syntheticBatch(10, "w"), nil)
	if err == nil || err.Error() != "store: load: closed" || !errors.Is(err, ErrClosed) {
		t.Errorf("load on a closed store: %v", err)
	}
	ro := t.TempDir()
	mustOpen(t, ro).Close()
	rodb, err := Open(ro, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rodb.Close()
	err = rodb.ReplaceDerived(context.Background(), nil)
	if err == nil || err.Error() != "store: replace derived: opened read-only" || !errors.Is(err, ErrReadOnly) {
		t.Errorf("replace derived on a read-only store: %v", err)
	}
}
