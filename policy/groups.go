package policy

import (
	"context"
	"slices"
	"sync"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// MaxGroupTriples bounds the group triples of a relation: the rules'
// predictions for at most this many of its triples, asked in both
// directions, decide its groups. Fifty rank FB15k-237's default file as
// well as 200 did (test MRR .3452 against .3450, eval --rules) for a
// quarter of the rule applications, which were half of eval's work.
const MaxGroupTriples = 50

// GroupSplit is the split whose triples of a relation are its group
// triples when it has any.
const GroupSplit = "valid"

// RuleHits is rule application for link prediction, as [reasoner.Engine]
// gives it: fn is called once per candidate of the query (head, given, ?)
// (or (?, given) of head when inverse) with the confidences its rules
// give it.
type RuleHits interface {
	EachRuleHit(ctx context.Context, head, given string, inverse bool, fn func(id store.ID, hits []reasoner.RuleScore)) error
}

// PrepareRules prepares prog's rules applied once to st's base facts, as
// eval applies them (at reasoner.RankMin), for [Groups]. snap is st's
// snapshot when the caller holds one (nil: taken when needed).
func PrepareRules(ctx context.Context, st store.Store, prog *datalog.Program, snap *store.Snapshot) (*reasoner.Engine, error) {
	return reasoner.Prepare(ctx, st, prog, reasoner.Options{Min: reasoner.RankMin, BaseOnly: true, Snapshot: snap, LazyLoad: true})
}

// Grouper finds the groups of a program's rules over a store, relation by
// relation, reading the store's GroupSplit once for all of them. It applies
// the rules of a relation once (its sketches, kept until Drop), whatever
// the overlaps its groups are asked at. It is safe for concurrent use when
// hits is (a reasoner.Engine is): the groups of different relations may be
// found at once, on as many cores.
type Grouper struct {
	st    store.Store
	hits  RuleHits
	prog  *datalog.Program
	split func() (map[store.ID][]store.Triple, error) // GroupSplit's triples by relation, read once
	heads func() map[string][]int32                   // the rules of the relations prog records groups of

	mu       sync.Mutex // guards sketches
	sketches map[string]headSketches
}

// headSketches are the sketches of the predictions of a relation's rules on
// its group triples: sk's k-th rule is the program's rule rules[k]; the
// rules with no prediction are left out.
type headSketches struct {
	rules []int32
	sk    *linkpred.RuleSketches
}

// NewGrouper returns the grouper of prog's rules over st, applied by hits
// (PrepareRules).
func NewGrouper(st store.Store, hits RuleHits, prog *datalog.Program) *Grouper {
	return &Grouper{st: st, hits: hits, prog: prog, split: sync.OnceValues(func() (map[store.ID][]store.Triple, error) {
		return splitByRelation(st)
	}), heads: sync.OnceValue(func() map[string][]int32 {
		preds := make([]string, len(prog.RuleGroups))
		for i, rg := range prog.RuleGroups {
			preds[i] = rg.Pred
		}
		return prog.HeadRules(preds)
	})}
}

// Triples returns the group triples of pred: its triples in the store's
// GroupSplit when there are any, else its base facts; at most
// MaxGroupTriples of them, evenly spread over those in the order the store
// yields them. A predicate the store does not know has none.
func (g *Grouper) Triples(pred string) ([]store.Triple, error) {
	rel, ok, err := g.st.Lookup(pred)
	if err != nil || !ok {
		return nil, err
	}
	split, err := g.split()
	if err != nil {
		return nil, err
	}
	ts := split[rel]
	if len(ts) == 0 {
		for f, err := range g.st.Scan(rel) {
			if err != nil {
				return nil, err
			}
			if len(f.Args) == 2 {
				ts = append(ts, store.Triple{S: f.Args[0], R: rel, O: f.Args[1]})
			}
		}
	}
	return spread(ts, MaxGroupTriples), nil
}

// splitByRelation returns st's GroupSplit's triples by relation (none
// without such a split).
func splitByRelation(st store.Store) (map[store.ID][]store.Triple, error) {
	out := map[store.ID][]store.Triple{}
	splits, err := st.Splits()
	if err != nil || !slices.Contains(splits, GroupSplit) {
		return out, err
	}
	for t, err := range st.Split(GroupSplit) {
		if err != nil {
			return nil, err
		}
		out[t.R] = append(out[t.R], t)
	}
	return out, nil
}

// spread returns at most n of ts, evenly spaced, in order.
func spread(ts []store.Triple, n int) []store.Triple {
	if len(ts) <= n {
		return ts
	}
	out := make([]store.Triple, n)
	for i := range out {
		out[i] = ts[i*len(ts)/n]
	}
	return out
}

// Groups returns the groups of the program's rules of head pred: group[i]
// for prog.Rules[i]. Two rules are linked when the Jaccard overlap of their
// predictions for pred's group triples (Triples, each asked for its tail
// and for its head) reaches overlap (linkpred.RuleSketches.Groups); groups
// are the connected sets of linked rules, numbered in order of their first
// rule. Rules of other heads predict nothing here and are groups of their
// own. The result depends on the store and the program only.
func (g *Grouper) Groups(ctx context.Context, pred string, overlap float64) ([]int32, error) {
	rules, local, err := g.GroupsAt(ctx, pred, []float64{overlap})
	if err != nil {
		return nil, err
	}
	return numberGroups(len(g.prog.Rules), rules, local[0]), nil
}

// numberGroups returns the group of each of n rules given in GroupsAt's
// compact form (rules[k] in group local[k]), numbered in order of their
// first rule, a rule not in rules being a group of its own.
func numberGroups(n int, rules, local []int32) []int32 {
	group := make([]int32, n)
	ids := map[int32]int32{}
	next, k := int32(0), 0
	for i := range group {
		if k < len(rules) && int(rules[k]) == i {
			id, ok := ids[local[k]]
			if !ok {
				id, next = next, next+1
				ids[local[k]] = id
			}
			group[i], k = id, k+1
			continue
		}
		group[i], next = next, next+1
	}
	return group
}

// GroupsAt returns the groups of pred's rules at each of overlaps, as
// Groups finds them, in compact form: rules are the program's rules that
// predict something on pred's group triples, in order, and groups[t][k] is
// the group of rules[k] at overlaps[t] (rules[k] and rules[j] are in one
// group exactly when groups[t][k] == groups[t][j]); every other rule is a
// group of its own. The rules are applied once per predicate, whatever
// the overlaps.
func (g *Grouper) GroupsAt(ctx context.Context, pred string, overlaps []float64) (rules []int32, groups [][]int32, err error) {
	if len(overlaps) == 1 {
		if rules, group, ok := Recorded(g.prog, pred, overlaps[0], g.heads()[pred]); ok {
			return rules, [][]int32{group}, nil
		}
	}
	g.mu.Lock()
	hs, ok := g.sketches[pred]
	g.mu.Unlock()
	if !ok {
		// Two callers asking for one relation at once both sketch it: the
		// same result, kept once.
		if hs, err = g.sketch(ctx, pred); err != nil {
			return nil, nil, err
		}
		g.mu.Lock()
		if g.sketches == nil {
			g.sketches = map[string]headSketches{}
		}
		g.sketches[pred] = hs
		g.mu.Unlock()
	}
	return hs.rules, hs.sk.GroupsAt(overlaps), nil
}

// Drop forgets the sketches of pred's rules (their memory), which a later
// call for pred computes again.
func (g *Grouper) Drop(pred string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.sketches, pred)
}

// sketch applies the rules of head pred to its group triples and returns
// the sketches of their predictions.
func (g *Grouper) sketch(ctx context.Context, pred string) (headSketches, error) {
	ts, err := g.Triples(pred)
	if err != nil {
		return headSketches{}, err
	}
	sk := linkpred.NewRuleSketches(len(g.prog.Rules))
	for i, t := range ts {
		for dir, given := range []store.ID{t.S, t.O} {
			name, err := g.st.Name(given)
			if err != nil {
				return headSketches{}, err
			}
			qi := uint32(2*i + dir)
			err = g.hits.EachRuleHit(ctx, pred, name, dir == 1, func(id store.ID, hs []reasoner.RuleScore) {
				for _, h := range hs {
					sk.Add(int(h.Rule), linkpred.PairKey(qi, uint32(id)))
				}
			})
			if err != nil {
				return headSketches{}, err
			}
		}
	}
	rules, compact := sk.Compact()
	return headSketches{rules: rules, sk: compact}, nil
}
