package mining

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/miner"
)

// NewRunID returns a random id for a cluster run ("r" and 12 hex digits).
func NewRunID() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "r" + hex.EncodeToString(b[:]), nil
}

// GroupResults is the result of a run mined in head groups on a cluster's
// workers (cluster.Coordinator.Mine's results, in group order): the group
// models read from the bytes the workers sent, which it also returns (to
// be saved as they are), and their rules merged in head order.
func GroupResults(groups []miner.Group, results []cluster.Result) (*miner.Result, [][]byte, error) {
	r := &miner.Result{Groups: groups}
	var files [][]byte
	var lists [][]miner.MinedRule
	for _, res := range results {
		m, err := miner.Load(bytes.NewReader(res.Model))
		if err != nil {
			return nil, nil, fmt.Errorf("group %d from %s: %w", res.Group, res.Worker, err)
		}
		r.Models = append(r.Models, m)
		files = append(files, res.Model)
		lists = append(lists, res.Rules)
	}
	r.Rules = miner.MergeRules(lists...)
	return r, files, nil
}

// SnapshotData returns the bytes of the graph snapshot a cluster's workers
// mine: the content of file, a snapshot written by miner.WriteSnapshot, or,
// when file is "", src's written now.
func SnapshotData(ctx context.Context, src miner.GraphSource, file string) ([]byte, error) {
	if file != "" {
		return os.ReadFile(file)
	}
	var b bytes.Buffer
	if err := miner.WriteSnapshot(ctx, &b, src); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// MineOnCluster mines the head groups on the workers the coordinator co
// reaches, from the graph snapshot data, each group with opt and its own
// heads (opt's are ignored). It returns the run's result and the bytes of
// the group models as the workers sent them ([GroupResults]); the error of
// an interrupted run wraps ctx's.
func MineOnCluster(ctx context.Context, co *cluster.Coordinator, data []byte, groups []miner.Group, opt miner.Options) (*miner.Result, [][]byte, error) {
	opt.Config.Heads = nil // each job's are its group's
	results, err := co.Mine(ctx, cluster.Plan{Snapshot: data, Options: opt, Groups: groups})
	if err != nil {
		return nil, nil, err
	}
	return GroupResults(groups, results)
}
