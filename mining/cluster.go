package mining

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"

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
