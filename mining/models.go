package mining

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/miner"
)

// ModelSet is a model as drumql eval --model reads it: one model file, or
// the manifest of a run mined in head groups, each relation scored by the
// model of its group.
type ModelSet struct {
	Models []*miner.Model
	Heads  [][]string // Heads[k] are the relations of Models[k]; nil for one model
}

// Single wraps one model.
func Single(m *miner.Model) *ModelSet { return &ModelSet{Models: []*miner.Model{m}} }

// LoadModels reads a model saved by drumql mine --save-model: a model file,
// or a manifest of group models (whose checksums it verifies). Every error
// is about the file or what it names.
func LoadModels(path string) (*ModelSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !cluster.IsManifest(data) {
		m, err := miner.Load(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return Single(m), nil
	}
	man, err := cluster.ReadManifest(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	set := &ModelSet{}
	for k, gr := range man.Groups {
		file := filepath.Join(filepath.Dir(path), gr.File)
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s: group %d: %w", path, k+1, err)
		}
		if sum := cluster.SHA256(b); sum != gr.SHA256 {
			return nil, fmt.Errorf("%s: group %d: %s has SHA-256 %s, the manifest says %s (a model file of another run?)", path, k+1, file, sum, gr.SHA256)
		}
		m, err := miner.Load(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		set.Models = append(set.Models, m)
		set.Heads = append(set.Heads, gr.Heads)
	}
	return set, nil
}

// GroupFileError is the error of writing a group model's file.
type GroupFileError struct {
	Group int // from 1
	Err   error
}

// Error names the group.
func (e *GroupFileError) Error() string { return fmt.Sprintf("group %d: %v", e.Group, e.Err) }

// Unwrap returns the error of writing the file.
func (e *GroupFileError) Unwrap() error { return e.Err }

// SaveGroups writes the group models beside path (path.g1 …) and the
// manifest naming them to path. The error of writing a group model's file
// is a [*GroupFileError].
func (r *Run) SaveGroups(path string) error {
	var man cluster.Manifest
	for k, m := range r.Result.Models {
		var data []byte
		if r.Files != nil {
			data = r.Files[k]
		} else {
			var b bytes.Buffer
			if err := m.Save(&b); err != nil {
				return err
			}
			data = b.Bytes()
		}
		file := fmt.Sprintf("%s.g%d", filepath.Base(path), k+1)
		if err := atomicfile.WriteFile(filepath.Join(filepath.Dir(path), file), data); err != nil {
			return &GroupFileError{Group: k + 1, Err: err}
		}
		man.Groups = append(man.Groups, cluster.ManifestGroup{File: file, Heads: r.Result.Groups[k].Heads, SHA256: cluster.SHA256(data)})
	}
	var b bytes.Buffer
	if err := cluster.WriteManifest(&b, &man); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b.Bytes())
}

// ReadRules reads the rules off the models of set with opt, instead of
// training: one model's for heads (or its own heads), or each group
// model's for its heads (those of heads among them, groups without any
// left out). The error of a group model names the group.
func ReadRules(ctx context.Context, g *miner.Graph, set *ModelSet, heads []string, opt miner.Options) (*miner.Result, error) {
	if set.Heads == nil {
		opt.Extract.Heads = heads
		rules, err := miner.ExtractRules(ctx, g, set.Models[0], opt)
		if err != nil {
			return nil, err
		}
		return &miner.Result{Models: set.Models, Rules: rules}, nil
	}
	res := &miner.Result{}
	var lists [][]miner.MinedRule
	for k, m := range set.Models {
		mine := set.Heads[k]
		if len(heads) > 0 {
			mine = intersect(mine, heads)
			if len(mine) == 0 {
				continue
			}
		}
		opt.Extract.Heads = mine
		rules, err := miner.ExtractRules(ctx, g, m, opt)
		if err != nil {
			return nil, fmt.Errorf("group %d: %w", k+1, err)
		}
		res.Groups = append(res.Groups, miner.Group{Heads: mine})
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

// SaveModel writes the run's model to path: the model file, or for a run
// mined in head groups the group models and their manifest (SaveGroups).
func (r *Run) SaveModel(path string) error {
	if r.Grouped() {
		return r.SaveGroups(path)
	}
	var b bytes.Buffer
	if err := r.Result.Models[0].Save(&b); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b.Bytes())
}
