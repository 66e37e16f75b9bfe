package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/store"
)

// groupFlags are drumql mine's flags for mining in head-relation groups, in
// this process or on drumql workers over NATS JetStream (cluster.go).
type groupFlags struct {
	HeadGroups int `placeholder:"N" default:"1" help:"Split the head relations into N groups balanced by training queries (largest first, ties by name); each group trains its own model over the whole graph and the rules are merged in head order. --save-model FILE then writes a manifest naming the group models FILE.g1 … FILE.gN (default 1: one model)."`
	clusterFlags
}

// groupRun is the result of mining in head groups.
type groupRun struct {
	groups []cluster.Group
	models []*miner.Model
	// files are the saved bytes of each group's model (as a worker sent
	// them), or nil to save models[k].
	files [][]byte
	rules []miner.MinedRule
	// done is the number of groups mined (fewer after Ctrl-C in process).
	done int
}

// grouped reports whether mine runs in head groups.
func (c *mineCmd) grouped() bool { return c.HeadGroups > 1 || c.Cluster != "" }

// settings are the run's mining settings from the flags; cfg is the
// defaulted training configuration.
func (c *mineCmd) settings(cfg miner.Config) cluster.Settings {
	weight := miner.WeightConfidence
	if c.Weight == "score" {
		weight = miner.WeightScore
	}
	cfg.Heads, cfg.Threads = nil, 0
	s := cluster.Settings{Config: cfg, Beam: c.Beam, MaxRules: c.MaxRules, Candidates: c.Candidates, MinScore: defaultMinScore,
		MinSupport: deref(c.MinSupport), Weight: weight, SupportBudget: deref(c.Budget), NoConstants: c.NoConstants, ConstantRules: deref(c.ConstantRules),
		PerConstant: deref(c.PerConstant), ConstantsBy: c.ConstantsBy, ConstantLen: c.ConstantLen, PathSamples: deref(c.PathSamples), HeadBudget: deref(c.HeadBudget)}
	if c.MinScore != nil {
		// Set: every chain rule, the path samples' too.
		s.MinScore, s.PathMinScore = *c.MinScore, *c.MinScore
	}
	return s
}

// partition splits the head relations (--heads, or every relation of g)
// into --head-groups groups balanced by training queries.
func (c *mineCmd) partition(src miner.Source, g *miner.Graph) ([]cluster.Group, error) {
	loads, err := cluster.TrainingQueries(src, g, c.Heads)
	if err != nil {
		if errors.Is(err, miner.ErrUnknownRelation) {
			return nil, inputErr(fmt.Errorf("mine: --heads: %w", err))
		}
		return nil, err
	}
	return cluster.Partition(loads, max(1, c.HeadGroups)), nil
}

// mineGroups mines the head groups, in this process or (with --cluster) on
// the workers. After Ctrl-C in this process it returns the groups mined so
// far, the interrupted one read off its current weights, with an error
// wrapping the context's.
func (c *mineCmd) mineGroups(e *env, src miner.GraphSource, g *miner.Graph, cfg miner.Config, progress func(miner.Progress)) (*groupRun, error) {
	groups, err := c.partition(src, g)
	if err != nil {
		return nil, err
	}
	s := c.settings(cfg)
	if c.Cluster != "" {
		return c.mineCluster(e, src, s, groups)
	}
	run := &groupRun{groups: groups}
	var lists [][]miner.MinedRule
	for k, gr := range groups {
		pk := func(p miner.Progress) {
			if progress != nil {
				progress(p)
			}
		}
		if !e.cli.Quiet && len(groups) > 1 {
			fmt.Fprintf(e.stderr, "mine: head group %d of %d: %d relations, %d training queries\n", k+1, len(groups), len(gr.Heads), gr.Queries)
		}
		model, trainErr := cluster.TrainGroup(e.ctx, src, g, s, gr.Heads, c.Threads, pk)
		if trainErr != nil && (model == nil || e.ctx.Err() == nil) {
			return nil, fmt.Errorf("mine: head group %d of %d: %w", k+1, len(groups), trainErr)
		}
		ctx := e.ctx
		if trainErr != nil {
			ctx = context.WithoutCancel(ctx)
		}
		rules, err := cluster.ExtractGroup(ctx, g, s, model, gr.Heads, c.Threads)
		if err != nil {
			return nil, fmt.Errorf("mine: head group %d of %d: %w", k+1, len(groups), err)
		}
		run.models = append(run.models, model)
		lists = append(lists, rules)
		run.done++
		if trainErr != nil {
			run.rules = cluster.MergeGroups(lists...)
			return run, trainErr
		}
	}
	run.rules = cluster.MergeGroups(lists...)
	return run, nil
}

// extractGroups reads the rules off the group models of a manifest
// (--from-model): each group's heads off its model.
func (c *mineCmd) extractGroups(e *env, g *miner.Graph, set *modelSet) (*groupRun, error) {
	run := &groupRun{models: set.models, done: len(set.models)}
	var lists [][]miner.MinedRule
	for k, m := range set.models {
		heads := set.heads[k]
		if len(c.Heads) > 0 {
			heads = intersect(heads, c.Heads)
			if len(heads) == 0 {
				continue
			}
		}
		run.groups = append(run.groups, cluster.Group{Heads: heads})
		rules, err := cluster.ExtractGroup(e.ctx, g, c.settings(m.Config()), m, heads, c.Threads)
		if err != nil {
			return nil, fmt.Errorf("mine: --from-model: group %d: %w", k+1, err)
		}
		lists = append(lists, rules)
	}
	run.rules = cluster.MergeGroups(lists...)
	return run, nil
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

// heads are the head relations of each group model.
func (r *groupRun) heads() [][]string {
	hs := make([][]string, len(r.models))
	for k := range r.models {
		hs[k] = r.groups[k].Heads
	}
	return hs
}

// history is the epochs of every group model, group after group.
func (r *groupRun) history() []miner.EpochStats {
	var h []miner.EpochStats
	for _, m := range r.models {
		h = append(h, m.History()...)
	}
	return h
}

// header is the comment that follows the first line of a mined file of a
// group run: the settings, the epochs of each group and the groups.
func (r *groupRun) header(cfg miner.Config) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%% T=%d L=%d batch=%d seed=%d epochs=", cfg.MaxLen, cfg.Rank, cfg.Batch, cfg.Seed)
	for k, m := range r.models {
		if k > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprint(&sb, len(m.History()))
	}
	fmt.Fprintf(&sb, " (per head group)\n%% %d head groups, balanced by training queries (mine --head-groups):", len(r.groups))
	for k, gr := range r.groups {
		fmt.Fprintf(&sb, "\n%% group %d (%d training queries): %s", k+1, gr.Queries, strings.Join(gr.Heads, " "))
		if k >= r.done {
			sb.WriteString(" (not mined: interrupted)")
		}
	}
	return sb.String()
}

// save writes the group models beside path (path.g1 …) and the manifest
// naming them to path.
func (r *groupRun) save(path string) error {
	var man cluster.Manifest
	for k, m := range r.models {
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
		man.Groups = append(man.Groups, cluster.ManifestGroup{File: file, Heads: r.groups[k].Heads, SHA256: cluster.SHA256(data)})
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

// configHeads are the head relations the models were trained for, nil when
// one model was trained for every relation.
func (s *modelSet) configHeads() []string {
	if s.heads == nil {
		return s.models[0].Config().Heads
	}
	var hs []string
	for _, h := range s.heads {
		hs = append(hs, h...)
	}
	return hs
}

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

// setScorer scores each query with the model of its relation's group.
type setScorer struct {
	scorers []*modelScorer
	byRel   map[store.ID]int // relation -> index in scorers; absent: 0
}

// newSetScorer adapts set to linkpred.Scorer over the graph g; gpos maps
// graph entity indices to positions among the n ranked entities.
func newSetScorer(set *modelSet, g *miner.Graph, gpos []int32, n int) *setScorer {
	rels := relNames(g)
	s := &setScorer{byRel: map[store.ID]int{}}
	for k, m := range set.models {
		s.scorers = append(s.scorers, &modelScorer{model: m, g: g, gpos: gpos, n: n, pool: make(chan *miner.Scorer, 8), rels: rels})
		if set.heads != nil {
			for id, name := range rels {
				for _, h := range set.heads[k] {
					if h == name {
						s.byRel[id] = k
					}
				}
			}
		}
	}
	return s
}

// Score implements linkpred.Scorer: qs are queries of one relation.
func (s *setScorer) Score(ctx context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
	return s.scorers[s.byRel[qs[0].Rel]].Score(ctx, qs, out)
}

// unseen is the number of queries over relations the models cannot score.
func (s *setScorer) unseen() int64 {
	var n int64
	for _, m := range s.scorers {
		n += m.unseen.Load()
	}
	return n
}
