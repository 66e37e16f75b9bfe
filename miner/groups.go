package miner

import (
	"cmp"
	"slices"

	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/store"
)

// HeadLoad is a head relation and its number of training queries.
type HeadLoad struct {
	Head    string `json:"head"`
	Queries int    `json:"queries"`
}

// Group is one group of a partition: its head relations, sorted by name,
// and their training queries in all.
type Group struct {
	Heads   []string `json:"heads"`
	Queries int      `json:"queries"`
}

// Partition splits the head relations of loads into at most n groups
// balanced by training queries: the heads are taken by decreasing number of
// queries (ties by name), and each goes to the group with the fewest
// queries so far (ties: the lowest group number). Every group gets at least
// one head with queries: n is lowered to the number of such heads (and
// raised to 1), so heads without queries only join groups that have some.
// Each group's heads are sorted by name; groups keep the order in which
// they were opened (group 1 holds the head with the most queries). The
// partition depends on the loads alone, not on their order.
func Partition(loads []HeadLoad, n int) []Group {
	ls := slices.Clone(loads)
	slices.SortFunc(ls, func(a, b HeadLoad) int {
		return cmp.Or(cmp.Compare(b.Queries, a.Queries), cmp.Compare(a.Head, b.Head))
	})
	ls = slices.CompactFunc(ls, func(a, b HeadLoad) bool { return a.Head == b.Head })
	withQueries := 0
	for _, l := range ls {
		if l.Queries > 0 {
			withQueries++
		}
	}
	n = max(1, min(n, withQueries))
	groups := make([]Group, n)
	for _, l := range ls {
		best := 0
		for i := 1; i < n; i++ {
			if groups[i].Queries < groups[best].Queries {
				best = i
			}
		}
		groups[best].Heads = append(groups[best].Heads, l.Head)
		groups[best].Queries += l.Queries
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g.Heads) > 0 {
			slices.Sort(g.Heads)
			out = append(out, g)
		}
	}
	return out
}

// TrainingQueries counts the training queries of each head relation as
// TrainGraph reads them: the triples of src's "train" split whose
// relation and entities are in g, or every fact of g when there is no train
// split. heads restricts the count to these relations (empty: every
// relation of g); a head that is not a relation of g is an error wrapping
// ErrUnknownRelation. The result is in the order of heads (of g's
// relations when heads is empty).
func TrainingQueries(src Source, g *Graph, heads []string) ([]HeadLoad, error) {
	rels := g.Relations()
	snap := g.Snapshot()
	index := make(map[string]int, len(rels))
	for i, r := range rels {
		index[r] = i
	}
	if len(heads) == 0 {
		heads = rels
	}
	for _, h := range heads {
		if _, ok := index[h]; !ok {
			return nil, pkgerr.Newf("miner: head relation %q has no facts in the graph: %w", h, ErrUnknownRelation)
		}
	}
	counts := make([]int, len(rels))
	splits, err := src.Splits()
	if err != nil {
		return nil, pkgerr.Newf("miner: count training queries: %w", err)
	}
	if slices.Contains(splits, "train") {
		relOf := make(map[store.ID]int, len(snap.Relations))
		for i, id := range snap.Relations {
			relOf[id] = i
		}
		for t, err := range src.Split("train") {
			if err != nil {
				return nil, pkgerr.Newf("miner: count training queries: %w", err)
			}
			r, ok := relOf[t.R]
			if !ok {
				continue
			}
			if _, ok := g.EntityIndex(t.S); !ok {
				continue
			}
			if _, ok := g.EntityIndex(t.O); !ok {
				continue
			}
			counts[r]++
		}
	} else {
		for r := range rels {
			counts[r] = len(snap.Out[r].Col)
		}
	}
	out := make([]HeadLoad, len(heads))
	for i, h := range heads {
		out[i] = HeadLoad{Head: h, Queries: counts[index[h]]}
	}
	return out, nil
}

// HeadGroups splits the head relations heads (empty: every relation of g)
// into at most n groups balanced by their training queries in src:
// Partition of TrainingQueries. These are the groups Mine trains with
// Options.HeadGroups n > 1.
func HeadGroups(src Source, g *Graph, heads []string, n int) ([]Group, error) {
	loads, err := TrainingQueries(src, g, heads)
	if err != nil {
		return nil, err
	}
	return Partition(loads, max(1, n)), nil
}
