package miner

import (
	"cmp"
	"fmt"
	"github.com/drumql/drumql/miner/internal/sparse"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/internal/workpool"

	"github.com/drumql/drumql/datalog"
)

// ExtractOptions control rule extraction. The zero value means the defaults.
type ExtractOptions struct {
	// Heads lists the head relations to extract rules for; empty means the
	// model's Config.Heads, or every relation when that is empty too.
	Heads []string
	// Beam is the number of partial bodies kept per step of the beam
	// search. Default 200.
	Beam int
	// MinScore drops bodies whose raw score Σ_j Π_t a_{j,t,k_t} is below it
	// (the prefix score bounds every completion, so the pruning is exact).
	// Default 0.01, the rule_thr of the original code.
	MinScore float64
	// MaxRules is the maximum number of rules per head relation. Default 20.
	MaxRules int
	// Candidates is the number of bodies per head relation, the best by
	// DRUM score, whose support is counted; when weighting by confidence,
	// the MaxRules best of them by smoothed confidence are kept (DRUM
	// proposes, the graph chooses). Default MaxRules: the MaxRules best by
	// score.
	Candidates int
	// SupportBudget bounds the edge visits of counting one rule's support;
	// a rule over it is left uncounted. Default 5,000,000.
	SupportBudget int
	// Threads bounds the goroutines that extract head relations in
	// parallel; 0 means runtime.GOMAXPROCS(0). The result does not depend
	// on it.
	Threads int
	// Graph, if not nil, is used to count each rule's support (groundings
	// of the body whose head fact holds) and body groundings for the
	// comment; default the graph the model was trained on (none after Load).
	Graph *Graph
	// NoSupport disables the support counts.
	NoSupport bool
	// KeepVacuous keeps rules whose body has no grounding in the graph.
	// By default, when support is counted, such rules are dropped: they can
	// never fire on this graph (they arise when a step's mass is lost and
	// the per-step normalisation scales the rest back up).
	KeepVacuous bool
	// MinSupport drops, when support is counted, rules whose body predicts
	// fewer than MinSupport facts of the graph correctly: a rule that never
	// holds on the data it was mined from is noise of the attention (it
	// arises on small graphs and short training). Default 1; a negative
	// value keeps every rule. Weights are normalised over the rules kept.
	MinSupport int
	// Weight chooses the rule weights written out (see WeightBy); the zero
	// value is WeightConfidence.
	Weight WeightBy
	// Smoothing is the number of unseen counter-examples added to the body
	// count of the confidence weight (AnyBURL's "unseen negative
	// examples"): support/(body+Smoothing). Default 5; negative means 0.
	Smoothing int
	// HeadBudget bounds the edge visits of counting the support of all the
	// bodies of one head relation, in the order they are proposed (the
	// beam's by score, then the paths'); once it is spent, the bodies left
	// are not counted, and so not kept when weighting by confidence.
	// Default 100,000,000; the count never depends on time or threads.
	HeadBudget int
	// PathSamples is the number of facts of each head relation whose
	// connecting paths in the graph propose bodies besides the attention's
	// (see Graph.samplePaths; only when weighting by confidence on a
	// graph). Default 200; negative: none.
	PathSamples int
	// PathCandidates bounds the bodies the path samples propose per head
	// relation (those connecting the most sampled facts) whose support is
	// counted, besides the Candidates best by DRUM score. Default 300.
	PathCandidates int
	// PathBudget bounds the edge visits of enumerating one sampled fact's
	// paths of length three. Default 100,000.
	PathBudget int
	// Seed seeds the samples of facts (with the head relation's index);
	// 0 means the model's seed.
	Seed uint64
}

// WeightBy is how extracted rules are weighted.
type WeightBy int

const (
	// WeightConfidence weights a rule by its smoothed confidence on the
	// graph, support/(body+Smoothing): DRUM proposes the rules (the
	// Candidates best by score), the graph chooses (the MaxRules best by
	// confidence) and calibrates them. A rule whose support cannot be
	// counted within SupportBudget is left out; a head none of whose rules
	// can be counted (or no graph) falls back to WeightScore.
	WeightConfidence WeightBy = iota
	// WeightScore weights a rule by its raw DRUM score divided by the head's
	// best score, as the paper reads rules off the attention.
	WeightScore
)

func (o ExtractOptions) withDefaults() ExtractOptions {
	if o.Beam <= 0 {
		o.Beam = 200
	}
	if o.MinScore <= 0 {
		o.MinScore = 0.01
	}
	if o.MaxRules <= 0 {
		o.MaxRules = 20
	}
	if o.Candidates < o.MaxRules {
		o.Candidates = o.MaxRules
	}
	if o.SupportBudget <= 0 {
		o.SupportBudget = 5_000_000
	}
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	if o.MinSupport == 0 {
		o.MinSupport = 1
	}
	if o.Smoothing == 0 {
		o.Smoothing = 5
	} else if o.Smoothing < 0 {
		o.Smoothing = 0
	}
	if o.HeadBudget <= 0 {
		o.HeadBudget = 100_000_000
	}
	if o.PathSamples == 0 {
		o.PathSamples = 200
	}
	if o.PathCandidates <= 0 {
		o.PathCandidates = 300
	}
	if o.PathBudget <= 0 {
		o.PathBudget = 100_000
	}
	return o
}

// step is one body atom of a rule read as a path from A to B: relation rel,
// and whether the atom is rel(next, cur) (rev) rather than rel(cur, next).
type pathStep struct {
	rel int
	rev bool
}

// MinedRule is one rule read off a model, with the numbers behind it.
type MinedRule struct {
	// Rule is the datalog rule with its weight; its Comment is empty (see
	// [MinedRule.Datalog]).
	Rule datalog.Rule
	// Head is the head relation (Rule.Head.Pred).
	Head string
	// Score is the raw DRUM score of the body, Σ_j Π_t a_{j,t,k_t}.
	Score float64
	// Ranks are the per-rank terms of Score, rank by rank.
	Ranks []float64
	// Counted reports whether Support and Body were counted on a graph.
	Counted bool
	// Support is the number of pairs (A, B) that the body connects and
	// for which the head fact holds in the graph.
	Support int
	// Body is the number of pairs (A, B) that the body connects.
	Body int
	// Confidence is Support/Body, the unsmoothed confidence on the graph;
	// 0 when Body is 0 or the support was not counted.
	Confidence float64
	// FromGraph marks a rule learned from the graph itself (a rule with
	// constants, see [Graph.ConstantRules]) rather than read off the
	// attention; its Score and Ranks are zero.
	FromGraph bool
}

// Comment returns the comment written above the rule in a mined file:
// "score=S ranks=R1,R2,…" (a rule learned from the graph: "from the
// graph"), then, when the support was counted,
// " support=N body=M" and, when M > 0, " conf=C"; numbers with four
// significant digits.
func (r MinedRule) Comment() string {
	var sb strings.Builder
	if r.FromGraph {
		sb.WriteString("from the graph")
	} else {
		fmt.Fprintf(&sb, "score=%s ranks=", fmtG(r.Score))
		for j, v := range r.Ranks {
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(fmtG(v))
		}
	}
	if r.Counted {
		fmt.Fprintf(&sb, " support=%d body=%d", r.Support, r.Body)
		if r.Body > 0 {
			sb.WriteString(" conf=" + fmtG(r.Confidence))
		}
	}
	return sb.String()
}

// Datalog returns the rule with its [MinedRule.Comment] set, as a mined
// file prints it.
func (r MinedRule) Datalog() datalog.Rule {
	d := r.Rule
	d.Comment = r.Comment()
	return d
}

// DatalogRules returns the rules of rs with their comments (see
// [MinedRule.Datalog]), in the same order.
func DatalogRules(rs []MinedRule) []datalog.Rule {
	out := make([]datalog.Rule, len(rs))
	for i := range rs {
		out[i] = rs[i].Datalog()
	}
	return out
}

// candidate is one extracted rule before normalisation.
type candidate struct {
	MinedRule
	key    string
	path   []pathStep
	smooth float64 // support/(body+smoothing), the confidence weight
}

// Attention returns the attention of the query relation rel (inverse: the
// query inv_rel) as [rank][step][operator]; operators 0..R−1 are the
// relations in Relations() order, R..2R−1 their inverses, 2R the identity.
func (m *Model) Attention(rel string, inverse bool) ([][][]float64, error) {
	r, ok := m.relIdx[rel]
	if !ok {
		return nil, errorf("miner: attention of %q: %w", rel, ErrUnknownRelation)
	}
	if inverse {
		r += m.numRel()
	}
	c := newAttnCache(&m.lay)
	m.attnForward(r, c)
	return c.a, nil
}

// Rules extracts weighted rules from the model's attention (see the package
// documentation): per head relation r, the bodies found by a beam search for
// the query r and for inv_r (read the other way round), merged by canonical
// form keeping the higher score. Weights are the raw scores divided by the
// head's best score, so they lie in (0, 1], or, by default, the rules'
// smoothed confidences on the graph (see WeightBy). Rules are sorted by head
// name, then by decreasing weight, then by score and canonical text. Empty bodies and the
// tautology r(A, B) :- r(A, B) are dropped. Each rule carries its raw
// score, the per-rank contributions and, with a graph, its support counts;
// [MinedRule.Comment] formats them for a mined file.
func (m *Model) Rules(opt ExtractOptions) ([]MinedRule, error) {
	opt = opt.withDefaults()
	if opt.Seed == 0 {
		opt.Seed = m.cfg.Seed
	}
	heads := opt.Heads
	if len(heads) == 0 {
		heads = m.cfg.Heads
	}
	if len(heads) == 0 {
		heads = m.Relations()
	}
	heads = slices.Clone(heads)
	slices.Sort(heads)
	heads = slices.Compact(heads)
	g := opt.Graph
	if g == nil {
		g = m.graph
	}
	if opt.NoSupport {
		g = nil
	}
	var gv *Graph
	if g != nil {
		gv = g.view(m.rels)
	}
	for _, h := range heads {
		if _, ok := m.relIdx[h]; !ok {
			return nil, errorf("miner: rules for %q: %w", h, ErrUnknownRelation)
		}
	}
	perHead := make([][]MinedRule, len(heads))
	caches := make([]*attnCache, opt.Threads)
	workpool.Run(opt.Threads, len(heads), func(w, i int) bool {
		if caches[w] == nil {
			caches[w] = newAttnCache(&m.lay)
		}
		perHead[i] = m.headRules(m.relIdx[heads[i]], gv, caches[w], opt)
		return true
	})
	var out []MinedRule
	for _, rs := range perHead {
		out = append(out, rs...)
	}
	return out, nil
}

// headRules extracts the rules of head relation r (see Rules); gv is the
// graph viewed in the model's relation order, or nil.
func (m *Model) headRules(r int, gv *Graph, cache *attnCache, opt ExtractOptions) []MinedRule {
	R := m.numRel()
	byConf := opt.Weight == WeightConfidence && gv != nil
	// Bodies the graph proposes: paths between the ends of sampled facts.
	var sampled []*candidate
	if byConf && opt.PathSamples > 0 {
		rng := rand.New(rand.NewPCG(opt.Seed, pathSeedSalt+uint64(r)))
		for _, p := range gv.samplePaths(r, m.lay.nT, opt.PathSamples, opt.PathBudget, 1, rng, &pathScratch{}) {
			if c := m.makeRule(r, p.steps(R)); c != nil {
				sampled = append(sampled, c)
			}
			if len(sampled) == opt.PathCandidates {
				break
			}
		}
	}
	// The beam proposes up to 2·Beam bodies; only those the loop below
	// reaches become rules. Until then a proposal keeps its canonical key,
	// path and scores (a tenth of a built rule), so that the memory of
	// extracting a head does not grow with the beam times the rule size.
	type proposal struct {
		key   string
		path  []pathStep
		score float64
		ranks []float64
	}
	best := map[string]*proposal{}
	for _, inverse := range []bool{false, true} {
		q := r
		if inverse {
			q += R
		}
		m.attnForward(q, cache)
		for _, c := range sampled {
			if s, ranks := m.bodyScore(cache.a, c.path, inverse); s > c.Score || c.Ranks == nil {
				c.Score, c.Ranks = s, ranks
			}
		}
		for _, c := range m.beam(cache.a, opt) {
			path := m.toPath(c.ops, inverse)
			cand := m.makeRule(r, path)
			if cand == nil {
				continue
			}
			if old, ok := best[cand.key]; !ok || c.score > old.score {
				best[cand.key] = &proposal{key: cand.key, path: path, score: c.score, ranks: c.ranks}
			}
		}
	}
	props := make([]*proposal, 0, len(best))
	for _, p := range best {
		props = append(props, p)
	}
	slices.SortFunc(props, func(a, b *proposal) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	limit := opt.MaxRules
	if byConf {
		limit = opt.Candidates
	}
	// The bodies the beam proposes, best by score, until limit of them are
	// kept; then those the paths propose that were not examined already.
	var kept []*candidate
	counted := 0
	var sc supportScratch
	examined := map[string]bool{}
	consider := func(c *candidate) {
		examined[c.key] = true
		if gv != nil && sc.work > opt.HeadBudget {
			return // the head's counting budget is spent: left out
		}
		if gv != nil {
			if sup, body, ok := gv.support(r, c.path, opt.SupportBudget, &sc); ok {
				if body == 0 && !opt.KeepVacuous {
					return
				}
				if opt.MinSupport > 0 && sup < opt.MinSupport && !(body == 0 && opt.KeepVacuous) {
					return
				}
				c.Counted, c.Support, c.Body = true, sup, body
				if body > 0 {
					c.Confidence = float64(sup) / float64(body)
				}
				c.smooth = float64(sup) / float64(body+opt.Smoothing)
				if sup > 0 {
					counted++
				}
			}
		}
		kept = append(kept, c)
	}
	for _, p := range props {
		if len(kept) == limit {
			break
		}
		c := m.makeRule(r, p.path)
		c.Score, c.Ranks = p.score, p.ranks
		consider(c)
	}
	for _, c := range sampled {
		if !examined[c.key] {
			consider(c)
		}
	}
	cands := kept
	if len(cands) == 0 {
		return nil
	}
	top := cands[0].Score
	if byConf && counted > 0 {
		// The graph chooses among the candidates DRUM proposed: the
		// MaxRules best by smoothed confidence, then by score.
		kept = cands[:0]
		for _, c := range cands {
			if c.Counted && c.Support > 0 {
				c.Rule.Weight = roundSig(c.smooth, 4)
				kept = append(kept, c)
			}
		}
		cands = kept
		slices.SortStableFunc(cands, func(a, b *candidate) int { return cmp.Compare(b.Rule.Weight, a.Rule.Weight) })
		cands = cands[:min(len(cands), opt.MaxRules)]
	} else {
		cands = cands[:min(len(cands), opt.MaxRules)]
		for _, c := range cands {
			c.Rule.Weight = roundSig(c.Score/top, 4)
		}
	}
	out := make([]MinedRule, len(cands))
	for i, c := range cands {
		out[i] = c.MinedRule
	}
	return out
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// roundSig rounds v > 0 to n significant digits (never to 0).
func roundSig(v float64, n int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', n, 64), 64)
	if r <= 0 {
		return v
	}
	return min(r, 1)
}

// seq is a body as a sequence of T operators with its score.
type seq struct {
	ops   []int
	score float64
	ranks []float64
}

// beam enumerates operator sequences k_1..k_T with score Σ_j Π_t a[j][t][k_t]
// ≥ opt.MinScore by beam search, and merges sequences that are the same body
// once identities are skipped (their scores add up, as in the expansion of
// the model without normalisation).
func (m *Model) beam(a [][][]float64, opt ExtractOptions) []seq {
	L, T, K := m.lay.L, m.lay.nT, m.lay.nOps
	type item struct {
		ops  []int
		prod []float64 // per rank
		sum  float64
	}
	// ext is an extension of item parent by operator k, before it is
	// materialised: only the opt.Beam best of a step are.
	type ext struct {
		sum    float64
		parent int32
		k      int32
	}
	cur := []item{{prod: slices.Repeat([]float64{1}, L), sum: float64(L)}}
	var exts []ext
	for t := range T {
		exts = exts[:0]
		for i, it := range cur {
			for k := range K {
				var s float64
				for j := range L {
					s += it.prod[j] * a[j][t][k]
				}
				if s >= opt.MinScore {
					exts = append(exts, ext{sum: s, parent: int32(i), k: int32(k)})
				}
			}
		}
		// Best first; among equal scores, in the order enumerated (parent,
		// then operator), as a stable sort by score would leave them.
		slices.SortFunc(exts, func(x, y ext) int {
			if c := cmp.Compare(y.sum, x.sum); c != 0 {
				return c
			}
			if c := cmp.Compare(x.parent, y.parent); c != 0 {
				return c
			}
			return cmp.Compare(x.k, y.k)
		})
		exts = exts[:min(len(exts), opt.Beam)]
		next := make([]item, len(exts))
		for i, x := range exts {
			it := cur[x.parent]
			p := make([]float64, L)
			var s float64
			for j := range L {
				p[j] = it.prod[j] * a[j][t][x.k]
				s += p[j]
			}
			next[i] = item{ops: append(slices.Clone(it.ops), int(x.k)), prod: p, sum: s}
		}
		cur = next
	}
	id := K - 1
	merged := map[string]*seq{}
	var order []string
	for _, it := range cur {
		var ops []int
		for _, k := range it.ops {
			if k != id {
				ops = append(ops, k)
			}
		}
		if len(ops) == 0 {
			continue
		}
		key := fmt.Sprint(ops)
		s, ok := merged[key]
		if !ok {
			s = &seq{ops: ops, ranks: make([]float64, L)}
			merged[key] = s
			order = append(order, key)
		}
		s.score += it.sum
		for j := range L {
			s.ranks[j] += it.prod[j]
		}
	}
	out := make([]seq, 0, len(order))
	for _, k := range order {
		out = append(out, *merged[k])
	}
	return out
}

// toPath turns the operators of a query (applied from the given entity to
// the answer) into a path from A to B, where the head is r(A, B). Operator
// k < R moves from y to x with fact k(x, y); operator R+p moves from y to x
// with fact p(y, x). Query r starts at B (the tail), inv_r at A.
func (m *Model) toPath(ops []int, inverse bool) []pathStep {
	R := m.numRel()
	n := len(ops)
	path := make([]pathStep, n)
	for i, k := range ops {
		// Along the query chain V_{i} -> V_{i+1}: forward operator gives
		// the atom rel(V_{i+1}, V_i).
		st := pathStep{rel: k % R, rev: k < R}
		if inverse {
			path[i] = st // V_0 = A: chain order is path order.
		} else {
			// V_0 = B: reverse the chain; the atom's orientation relative
			// to the path direction flips.
			path[n-1-i] = pathStep{rel: st.rel, rev: !st.rev}
		}
	}
	return path
}

// makeRule builds head(A, B) :- path from A to B, or nil for a tautology.
func (m *Model) makeRule(head int, path []pathStep) *candidate {
	if len(path) == 1 && path[0].rel == head && !path[0].rev {
		return nil
	}
	n := len(path)
	name := func(i int) string {
		switch i {
		case 0:
			return "A"
		case n:
			return "B"
		}
		return varName(i)
	}
	v := func(s string) datalog.Term { return datalog.Term{Kind: datalog.Var, Value: s} }
	rule := datalog.Rule{Weight: 1, Head: datalog.Atom{Pred: m.rels[head], Args: []datalog.Term{v("A"), v("B")}}}
	for i, st := range path {
		x, y := v(name(i)), v(name(i+1))
		if st.rev {
			x, y = y, x
		}
		rule.Body = append(rule.Body, datalog.Literal{Kind: datalog.Positive,
			Atom: datalog.Atom{Pred: m.rels[st.rel], Args: []datalog.Term{x, y}}})
	}
	if n >= 2 {
		// A path can come back to where it started; the head relates two
		// different entities (a self-loop is never what a chain of length
		// two or more means), so say so, as rule learners with object
		// identity do.
		rule.Body = append(rule.Body, datalog.Literal{Kind: datalog.Comparison, Op: datalog.OpNe, Left: v("A"), Right: v("B")})
	}
	return &candidate{MinedRule: MinedRule{Rule: rule, Head: rule.Head.Pred}, key: rule.Key(), path: path}
}

// varName names the i-th intermediate variable of a path (i ≥ 1): C, D, …,
// Z, then V27, V28, ….
func varName(i int) string {
	if i+1 < 26 {
		return string(rune('A' + i + 1))
	}
	return "V" + strconv.Itoa(i+1)
}

// supportScratch is the reusable memory of support: the visited marks and
// frontiers, and per (relation, direction) the entities with at least one
// neighbour (the only possible starts of a path).
type supportScratch struct {
	mark      []int32
	stamp     int32
	cur, next []int32
	starts    map[pathStep][]int32
	work      int // edge visits of every count so far
}

// startsOf returns the entities with a nonempty row in m, the matrix of
// step st, computed once per scratch.
func (sc *supportScratch) startsOf(st pathStep, m *sparse.CSR) []int32 {
	if rows, ok := sc.starts[st]; ok {
		return rows
	}
	var rows []int32
	for a := range m.Rows {
		if m.RowPtr[a+1] > m.RowPtr[a] {
			rows = append(rows, int32(a))
		}
	}
	if sc.starts == nil {
		sc.starts = map[pathStep][]int32{}
	}
	sc.starts[st] = rows
	return rows
}

// support counts, for the rule r(A, B) :- path, the distinct pairs (A, B)
// connected by the path in g (body) and those for which r(A, B) is a fact
// (sup), pairs with A = B excluded for paths of length two or more (the
// rule says A != B). It gives up (ok false) after budget edge visits. sc
// (nil: fresh memory) is reused across calls on the same graph.
func (g *Graph) support(r int, path []pathStep, budget int, sc *supportScratch) (sup, body int, ok bool) {
	E := g.NumEntities()
	if sc == nil {
		sc = &supportScratch{}
	}
	if len(sc.mark) != E {
		sc.mark, sc.stamp = make([]int32, E), 0
	}
	if sc.stamp > 1<<30 {
		clear(sc.mark)
		sc.stamp = 0
	}
	mark := sc.mark
	stamp := sc.stamp
	defer func() { sc.stamp = stamp }()
	if len(path) == 0 {
		return 0, 0, false
	}
	m0 := g.fwd[path[0].rel]
	if path[0].rev {
		m0 = g.bwd[path[0].rel]
	}
	cur, next := sc.cur[:0], sc.next[:0]
	defer func() { sc.cur, sc.next = cur, next }()
	work := 0
	defer func() { sc.work += work }()
	for _, a := range sc.startsOf(path[0], m0) {
		cur = append(cur[:0], a)
		for _, st := range path {
			m := g.fwd[st.rel] // rel(cur, next): next is a tail of cur
			if st.rev {
				m = g.bwd[st.rel] // rel(next, cur): next is a head of cur
			}
			stamp++
			next = next[:0]
			for _, x := range cur {
				cols := m.Col[m.RowPtr[x]:m.RowPtr[x+1]]
				work += len(cols)
				for _, y := range cols {
					if mark[y] != stamp {
						mark[y] = stamp
						next = append(next, y)
					}
				}
			}
			cur, next = next, cur
			if len(cur) == 0 || work > budget {
				break
			}
		}
		if work > budget {
			return 0, 0, false
		}
		if len(cur) > 0 {
			h := g.fwd[r]
			row := h.Col[h.RowPtr[a]:h.RowPtr[a+1]]
			for _, b := range cur {
				if len(path) >= 2 && b == a {
					continue // the rule says A != B
				}
				body++
				if _, found := slices.BinarySearch(row, b); found {
					sup++
				}
			}
		}
	}
	return sup, body, true
}
