package main

import (
	"errors"
	"fmt"
	"time"

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

// Run writes the snapshot file (miner.WriteSnapshotFile): a killed or
// failing run leaves --out as it was.
func (c *snapshotCmd) Run(e *env) error {
	st, err := e.openStore(true)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	n, err := miner.WriteSnapshotFile(e.ctx, c.Out, st, testHookSnapshotStep)
	if fe, ok := errors.AsType[*miner.SnapshotFileError](err); ok {
		return fmt.Errorf("snapshot: %w", fe.Err)
	} else if err != nil {
		return err
	}
	if !e.cli.Quiet {
		fmt.Fprintf(e.stderr, "wrote a snapshot of %s to %s (%d bytes) in %s\n", e.cli.DB, c.Out, n, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// testHookSnapshotStep, when not nil, is called at each step of writing a
// snapshot file (miner.StepWriting, StepWritten, StepRenamed). Only tests
// set it, to kill the process there.
var testHookSnapshotStep func(step string)

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
