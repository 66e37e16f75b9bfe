package main

import (
	"errors"
	"fmt"

	"github.com/drumql/drumql/store"
)

type loadCmd struct {
	Paths     []string `arg:"" name:"path" help:"DRUM dataset folder, TSV triple file (head<TAB>relation<TAB>tail) or N-Triples file (.nt)." type:"path"`
	Inductive int      `placeholder:"N" help:"Inductive setting: sample N test triples and drop every training and validation triple that touches their entities (one dataset folder only)."`
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
	var all store.Batch
	var errs []error
	for _, p := range c.Paths {
		b, err := store.ReadPath(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		mergeBatch(&all, b)
	}
	if len(errs) > 0 {
		return inputErr(fmt.Errorf("nothing was loaded:\n%w", errors.Join(errs...)))
	}
	if c.Inductive > 0 {
		if len(c.Paths) != 1 {
			return inputErr(fmt.Errorf("--inductive takes exactly one dataset folder"))
		}
		ist, err := store.MakeInductive(&all, c.Inductive, c.Seed)
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
	total := len(all.Graph) + len(all.Facts)
	pb := e.newBar(total, "loading")
	stats, err := st.Load(e.ctx, &all, func(done, _ int) { pb.set(done) })
	pb.finish()
	if err != nil {
		return fmt.Errorf("load: %w (the store is unchanged)", err)
	}
	if err := st.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "loaded %d new facts (%d already present), %d new symbols into %s\n",
		stats.NewFacts, stats.Skipped, stats.NewSymbols, e.cli.DB)
	return nil
}

// mergeBatch appends b to dst.
func mergeBatch(dst, b *store.Batch) {
	dst.Symbols = append(dst.Symbols, b.Symbols...)
	dst.Graph = append(dst.Graph, b.Graph...)
	dst.Facts = append(dst.Facts, b.Facts...)
	for name, ts := range b.Splits {
		if dst.Splits == nil {
			dst.Splits = map[string][]store.NamedTriple{}
		}
		dst.Splits[name] = append(dst.Splits[name], ts...)
	}
}
