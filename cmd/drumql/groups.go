package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/miner"
)

// groupFlags are drumql mine's flags for mining in head-relation groups, in
// this process or on drumql workers over NATS JetStream (cluster.go).
type groupFlags struct {
	HeadGroups int `placeholder:"N" default:"1" help:"Split the head relations into N groups balanced by training queries (largest first, ties by name); each group trains its own model over the whole graph and the rules are merged in head order. --save-model FILE then writes a manifest naming the group models FILE.g1 … FILE.gN (default 1: one model)."`
	clusterFlags
}

// readModels reads the rules off the --from-model models with opt: one
// model's for --heads (or its own heads), or each group model's for its
// heads (those of --heads among them, groups without any left out).
func (c *mineCmd) readModels(e *env, g *miner.Graph, set *modelSet, opt miner.Options) (*miner.Result, error) {
	if set.heads == nil {
		opt.Extract.Heads = c.Heads
		rules, err := miner.ExtractRules(e.ctx, g, set.models[0], opt)
		if err != nil {
			return nil, err
		}
		return &miner.Result{Models: set.models, Rules: rules}, nil
	}
	res := &miner.Result{}
	var lists [][]miner.MinedRule
	for k, m := range set.models {
		heads := set.heads[k]
		if len(c.Heads) > 0 {
			heads = intersect(heads, c.Heads)
			if len(heads) == 0 {
				continue
			}
		}
		opt.Extract.Heads = heads
		rules, err := miner.ExtractRules(e.ctx, g, m, opt)
		if err != nil {
			return nil, fmt.Errorf("mine: --from-model: group %d: %w", k+1, err)
		}
		res.Groups = append(res.Groups, miner.Group{Heads: heads})
		res.Models = append(res.Models, m)
		lists = append(lists, rules)
	}
	res.Rules = miner.MergeRules(lists...)
	return res, nil
}

// intersect returns the elements of a that are in b, in a's order.
func intersect(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if in[x] {
			out = append(out, x)
		}
	}
	return out
}

// groupHeader is the comment that follows the first line of a mined file
// of a group run: the settings, the epochs of each group and the groups.
func (r *mineRun) groupHeader() string {
	cfg := r.cfg
	var sb strings.Builder
	fmt.Fprintf(&sb, "%% T=%d L=%d batch=%d seed=%d epochs=", cfg.MaxLen, cfg.Rank, cfg.Batch, cfg.Seed)
	for k, m := range r.res.Models {
		if k > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprint(&sb, len(m.History()))
	}
	fmt.Fprintf(&sb, " (per head group)\n%% %d head groups, balanced by training queries (mine --head-groups):", len(r.res.Groups))
	for k, gr := range r.res.Groups {
		fmt.Fprintf(&sb, "\n%% group %d (%d training queries): %s", k+1, gr.Queries, strings.Join(gr.Heads, " "))
		if k >= len(r.res.Models) {
			sb.WriteString(" (not mined: interrupted)")
		}
	}
	return sb.String()
}

// saveGroups writes the group models beside path (path.g1 …) and the
// manifest naming them to path.
func (r *mineRun) saveGroups(path string) error {
	var man cluster.Manifest
	for k, m := range r.res.Models {
		var data []byte
		if r.files != nil {
			data = r.files[k]
		} else {
			var b bytes.Buffer
			if err := m.Save(&b); err != nil {
				return err
			}
			data = b.Bytes()
		}
		file := fmt.Sprintf("%s.g%d", filepath.Base(path), k+1)
		if err := atomicfile.WriteFile(filepath.Join(filepath.Dir(path), file), data); err != nil {
			return fmt.Errorf("mine: --save-model: %w", err)
		}
		man.Groups = append(man.Groups, cluster.ManifestGroup{File: file, Heads: r.res.Groups[k].Heads, SHA256: cluster.SHA256(data)})
	}
	var b bytes.Buffer
	if err := cluster.WriteManifest(&b, &man); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b.Bytes())
}

// modelSet is a model as drumql eval --model reads it: one model file, or
// the manifest of a run mined in head groups, each relation scored by the
// model of its group.
type modelSet struct {
	models []*miner.Model
	heads  [][]string // heads[k] are the relations of models[k]; nil for one model
}

// single wraps one model.
func single(m *miner.Model) *modelSet { return &modelSet{models: []*miner.Model{m}} }

// loadModel reads a model saved by drumql mine --save-model: a model file,
// or a manifest of group models (whose checksums it verifies).
func loadModel(path string) (*modelSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, inputErr(err)
	}
	if !cluster.IsManifest(data) {
		m, err := miner.Load(bytes.NewReader(data))
		if err != nil {
			return nil, inputErr(fmt.Errorf("%s: %w", path, err))
		}
		return single(m), nil
	}
	man, err := cluster.ReadManifest(bytes.NewReader(data))
	if err != nil {
		return nil, inputErr(fmt.Errorf("%s: %w", path, err))
	}
	set := &modelSet{}
	for k, gr := range man.Groups {
		file := filepath.Join(filepath.Dir(path), gr.File)
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, inputErr(fmt.Errorf("%s: group %d: %w", path, k+1, err))
		}
		if sum := cluster.SHA256(b); sum != gr.SHA256 {
			return nil, inputErr(fmt.Errorf("%s: group %d: %s has SHA-256 %s, the manifest says %s (a model file of another run?)", path, k+1, file, sum, gr.SHA256))
		}
		m, err := miner.Load(bytes.NewReader(b))
		if err != nil {
			return nil, inputErr(fmt.Errorf("%s: %w", file, err))
		}
		set.models = append(set.models, m)
		set.heads = append(set.heads, gr.Heads)
	}
	return set, nil
}
