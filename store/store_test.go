package store_test

import (
	"testing"

	"github.com/drumql/drumql/store"
	"github.com/drumql/drumql/store/storetest"
)

func openDB(t *testing.T) store.Store {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestConformanceDB(t *testing.T) { storetest.Run(t, openDB) }

func TestConformanceMem(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store { return store.NewMemory() })
}

func TestChangeLogCapDB(t *testing.T) {
	storetest.RunChangeLogCap(t, func(t *testing.T, n int) store.Store {
		s := openDB(t)
		store.SetChangeLogCap(s, n)
		return s
	})
}

func TestChangeLogCapMem(t *testing.T) {
	storetest.RunChangeLogCap(t, func(_ *testing.T, n int) store.Store {
		s := store.NewMemory()
		store.SetChangeLogCap(s, n)
		return s
	})
}
