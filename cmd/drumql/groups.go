package main

import (
	"github.com/drumql/drumql/mining"
)

// groupFlags are drumql mine's flags for mining in head-relation groups, in
// this process or on drumql workers over NATS JetStream (cluster.go).
type groupFlags struct {
	HeadGroups int `placeholder:"N" default:"1" help:"Split the head relations into N groups balanced by training queries (largest first, ties by name); each group trains its own model over the whole graph and the rules are merged in head order. --save-model FILE then writes a manifest naming the group models FILE.g1 … FILE.gN (default 1: one model)."`
	clusterFlags
}

// loadModel reads a model saved by drumql mine --save-model
// (mining.LoadModels); its errors are input errors.
func loadModel(path string) (*mining.ModelSet, error) {
	set, err := mining.LoadModels(path)
	if err != nil {
		return nil, inputErr(err)
	}
	return set, nil
}
