package main

import (
	"fmt"
	"io"
	"time"

	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// snapshotCmd is drumql snapshot.
type snapshotCmd struct {
	Out string `short:"o" required:"" placeholder:"FILE" help:"Write the snapshot to FILE."`
}

// Help is shown under the command's usage.
func (snapshotCmd) Help() string {
	return `Writes what mining reads from the store (the graph's facts in CSR order, the
names of its symbols and every split) as one versioned, checksummed file.
'drumql mine --snapshot FILE' trains from it without a store and gives the
same model, rules and aggregation (chosen on the file's valid split) as
mining the store; ship the file to the machines that mine.

Examples:
  drumql snapshot --out family.snap
  drumql mine --snapshot family.snap --out family.dl`
}

// Run writes the snapshot file: the data goes to a temporary file beside
// --out as it is produced, which is synced and renamed over --out once
// whole, so that a killed or failing run leaves --out as it was.
func (c *snapshotCmd) Run(e *env) error {
	st, err := e.openStore(true)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	f, err := atomicfile.Create(c.Out)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer f.Abort()
	w := &stepWriter{w: f}
	if err := miner.WriteSnapshot(e.ctx, w, st); err != nil {
		return err
	}
	snapshotStep("snapshot:written")
	if err := f.Commit(); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	snapshotStep("snapshot:renamed")
	if !e.cli.Quiet {
		fmt.Fprintf(e.stderr, "wrote a snapshot of %s to %s (%d bytes) in %s\n", e.cli.DB, c.Out, w.n, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// testHookSnapshotStep, when not nil, is called at each step of writing a
// snapshot file: snapshot:writing after each piece of data reached the
// temporary file, snapshot:written once all of it has (not synced, not
// renamed), snapshot:renamed once the file replaced --out (synced). Only
// tests set it, to kill the process there.
var testHookSnapshotStep func(step string)

// snapshotStep reports a step of writing a snapshot file.
func snapshotStep(step string) {
	if testHookSnapshotStep != nil {
		testHookSnapshotStep(step)
	}
}

// stepWriter passes writes on to w, counting the bytes written, and reports
// the step snapshot:writing after each.
type stepWriter struct {
	w io.Writer
	n int64
}

// Write writes p to w.
func (s *stepWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.n += int64(n)
	if err == nil {
		snapshotStep("snapshot:writing")
	}
	return n, err
}

// mineSource opens what drumql mine trains from: the snapshot file of
// --snapshot (st is then the file read as a store, see
// miner.SnapshotStore), or the
// store. from names it for the header.
func (c *mineCmd) mineSource(e *env) (src miner.GraphSource, st store.Store, from string, err error) {
	if c.Snapshot == "" {
		st, err := e.openStore(true)
		if err != nil {
			return nil, nil, "", err
		}
		return st, st, e.cli.DB, nil
	}
	if c.Eval {
		return nil, nil, "", inputErr(fmt.Errorf("mine: --eval needs the store (its filter reads every base fact); run 'drumql eval --model' on the store instead"))
	}
	f, err := miner.ReadSnapshotFile(c.Snapshot)
	if err != nil {
		return nil, nil, "", inputErr(err)
	}
	ss, err := miner.NewSnapshotStore(e.ctx, f)
	if err != nil {
		return nil, nil, "", err
	}
	return f, ss, c.Snapshot, nil
}
