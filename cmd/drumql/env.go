package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/drumql/drumql/internal/servefile"
	"github.com/drumql/drumql/store"
)

// env is what every command gets: the streams and the global flags.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	cli    *cli
}

// openStore opens the store at --db read-only, for the commands that only
// read it (query, explain, stats, eval, mine, verify). Readers share the
// store: any number of them run side by side, and a store on a read-only
// file system or without write permission can be read. With mustExist, a
// missing store is an error that says to run drumql load first.
//
// A store whose last writer died is recovered once by a short read-write
// open when nobody else has it open, then opened read-only again
// (store.OpenReadOnly).
func (e *env) openStore(mustExist bool) (store.Store, error) {
	if err := e.checkExists(mustExist); err != nil {
		return nil, err
	}
	dir := e.cli.DB
	st, err := store.OpenReadOnly(dir)
	if err != nil {
		return nil, storeError(err, dir, "a command that writes to it (load or infer) is running; wait for it to finish")
	}
	return st, nil
}

// openStoreForWriting opens the store at --db for load and infer, which
// have it to themselves: when another process (a reader or a writer) has
// it open, the command fails at once with an "in use" error instead of
// waiting. Without mustExist a missing store is created.
func (e *env) openStoreForWriting(mustExist bool) (store.Store, error) {
	if err := e.checkExists(mustExist); err != nil {
		return nil, err
	}
	st, err := store.Open(e.cli.DB, store.Options{})
	if err != nil {
		return nil, storeError(err, e.cli.DB, "another drumql process has it open; wait for it to finish")
	}
	return st, nil
}

// checkExists reports a missing store at --db when mustExist is set.
func (e *env) checkExists(mustExist bool) error {
	if !mustExist {
		return nil
	}
	if _, err := os.Stat(e.cli.DB); errors.Is(err, os.ErrNotExist) {
		abs, _ := filepath.Abs(e.cli.DB)
		return inputErr(fmt.Errorf("no store at %s: run 'drumql load DATA' first (or pass --db DIR)", abs))
	}
	return nil
}

// storeError adds a hint to an error of opening the store at dir; inUse is
// the hint for ErrInUse.
func storeError(err error, dir, inUse string) error {
	switch {
	case errors.Is(err, store.ErrInUse):
		return fmt.Errorf("%w\nhint: %s", err, servefile.HintOr(dir, inUse))
	case errors.Is(err, store.ErrNotWritable):
		return fmt.Errorf("%w\nhint: load and infer write to the store; query, explain, stats, eval, mine and verify open it read-only and work on it as it is (or copy it to a writable directory)", err)
	case errors.Is(err, store.ErrIncomplete):
		return fmt.Errorf("%w\nhint: run a command that writes to %s (drumql load or infer) once to recover it", err, dir)
	}
	return err
}
