package main

import (
	"errors"
	"fmt"

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
	replaced, err := replacedSplits(st, all)
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
		fmt.Fprintf(e.stderr, "drumql: warning: split %q replaced: it had %d triples, it now has the %d of this load\n", r.name, r.old, r.new)
	}
	fmt.Fprintf(e.stdout, "loaded %d new facts (%d already present), %d new symbols into %s\n",
		stats.NewFacts, stats.Skipped, stats.NewSymbols, e.cli.DB)
	if stale != "" {
		fmt.Fprintln(e.stderr, stale)
	}
	return nil
}

// readPaths reads the triple files (or dataset folders) of paths into one
// batch; on error, none is used ("nothing was <done>").
func readPaths(paths []string, done string) (*store.Batch, error) {
	var all store.Batch
	var errs []error
	for _, p := range paths {
		b, err := store.ReadPath(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		mergeBatch(&all, b)
	}
	if len(errs) > 0 {
		return nil, inputErr(fmt.Errorf("nothing was %s:\n%w", done, errors.Join(errs...)))
	}
	return &all, nil
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

// splitChange is a split a load replaces with different triples.
type splitChange struct {
	name     string
	old, new int
}

// replacedSplits lists, sorted by name, the splits of b that the store
// already holds with other triples: a load replaces a split whole, and
// the user should hear that the old one is gone.
func replacedSplits(st store.Store, b *store.Batch) ([]splitChange, error) {
	names, err := st.Splits()
	if err != nil {
		return nil, err
	}
	var out []splitChange
	for _, name := range names {
		ts, ok := b.Splits[name]
		if !ok {
			continue
		}
		n, same := 0, true
		for t, err := range st.Split(name) {
			if err != nil {
				return nil, err
			}
			if n >= len(ts) {
				same = false
			} else if same {
				s, err1 := st.Name(t.S)
				r, err2 := st.Name(t.R)
				o, err3 := st.Name(t.O)
				if err := errors.Join(err1, err2, err3); err != nil {
					return nil, err
				}
				same = ts[n] == store.NamedTriple{S: s, R: r, O: o}
			}
			n++
		}
		if !same || n != len(ts) {
			out = append(out, splitChange{name, n, len(ts)})
		}
	}
	return out, nil
}
