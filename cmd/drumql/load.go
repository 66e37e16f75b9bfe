package main

import (
	"errors"
	"fmt"

	"github.com/drumql/drumql/remote"
	"github.com/drumql/drumql/store"
)

type loadCmd struct {
	Paths     []string `arg:"" name:"path" help:"DRUM dataset folder, TSV triple file (head<TAB>relation<TAB>tail) or N-Triples file (.nt)." type:"path"`
	Inductive *int     `placeholder:"N" help:"Inductive setting: sample N test triples (at least 1) and drop every training and validation triple that touches their entities (one dataset folder only)."`
	Seed      uint64   `default:"1" placeholder:"S" help:"Seed of the --inductive sample."`
}

// Help is shown under the command's usage.
func (loadCmd) Help() string {
	return `A DRUM dataset folder holds facts.txt, train.txt, valid.txt, test.txt,
entities.txt and relations.txt; the graph is facts + train, valid and test are
kept as named splits for evaluation. A load lands whole or not at all; loading
the same data twice changes nothing.

Examples:
  drumql load examples/family
  drumql --db kg.db load triples.tsv more.nt
  drumql --db ind.db load --inductive 1000 $DRUMQL_DATASETS/wn-18`
}

func (c *loadCmd) Run(e *env) error {
	if c.Inductive != nil && *c.Inductive < 1 {
		return inputErr(fmt.Errorf("--inductive %d: want a number of test triples of at least 1 (or leave it out)", *c.Inductive))
	}
	if ok, err := remote.Send(e.ctx, e.cli.DB, remote.Files{Load: true, Inductive: c.Inductive != nil, Paths: c.Paths}, e.stdout); ok {
		return err // serve holds the store: it loads the files
	}
	all, err := readPaths(c.Paths, "loaded")
	if err != nil {
		return err
	}
	if c.Inductive != nil {
		if len(c.Paths) != 1 {
			return inputErr(fmt.Errorf("--inductive takes exactly one dataset folder"))
		}
		ist, err := store.MakeInductive(all, *c.Inductive, c.Seed)
		if errors.Is(err, store.ErrNoTestSplit) {
			return inputErr(fmt.Errorf("--inductive needs a dataset folder with a test.txt"))
		}
		if err != nil {
			return inputErr(err)
		}
		fmt.Fprintf(e.stdout, "inductive split: %d test triples over %d entities; removed %d training and %d validation triples that touch them\n",
			ist.Test, ist.Entities, ist.RemovedTrain, ist.RemovedValid)
	}
	st, err := e.openStoreForWriting(false)
	if err != nil {
		return err
	}
	defer st.Close()
	replaced, err := store.ReplacedSplits(st, all)
	if err != nil {
		return fmt.Errorf("load: %w (the store is unchanged)", err)
	}
	total := len(all.Graph) + len(all.Facts)
	pb := e.newBar(total, "loading")
	stats, err := st.Load(e.ctx, all, func(done, _ int) { pb.set(done) })
	pb.finish()
	if err != nil {
		return fmt.Errorf("load: %w (the store is unchanged)", err)
	}
	noteCommitted()
	stale := staleNote(st)
	if err := st.Close(); err != nil {
		return err
	}
	for _, r := range replaced {
		fmt.Fprintf(e.stderr, "drumql: warning: split %q replaced: it had %d triples, it now has the %d of this load\n", r.Name, r.Old, r.New)
	}
	fmt.Fprintf(e.stdout, "loaded %d new facts (%d already present), %d new symbols into %s\n",
		stats.NewFacts, stats.Skipped, stats.NewSymbols, e.cli.DB)
	if stale != "" {
		fmt.Fprintln(e.stderr, stale)
	}
	return nil
}

// readPaths reads the triple files (or dataset folders) of paths into one
// batch (store.ReadPaths); on error, none is used ("nothing was <done>").
func readPaths(paths []string, done string) (*store.Batch, error) {
	all, err := store.ReadPaths(paths)
	if err != nil {
		return nil, inputErr(fmt.Errorf("nothing was %s:\n%w", done, err))
	}
	return all, nil
}
