package miner

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/internal/workpool"
)

// step is one body atom of a rule read as a path from A to B: relation rel,
// and whether the atom is rel(next, cur) (rev) rather than rel(cur, next).
type pathStep struct {
	rel int
	rev bool
}

// Attention returns the attention of the query relation rel (inverse: the
// query inv_rel) as [rank][step][operator]; operators 0..R−1 are the
// relations in Relations() order, R..2R−1 their inverses, 2R the identity.
func (m *Model) Attention(rel string, inverse bool) ([][][]float64, error) {
	r, ok := m.relIdx[rel]
	if !ok {
		return nil, pkgerr.Newf("miner: attention of %q: %w", rel, ErrUnknownRelation)
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
	opt = opt.WithDefaults()
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
			return nil, pkgerr.Newf("miner: rules for %q: %w", h, ErrUnknownRelation)
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
	byConf := opt.Weight == WeightConfidence && gv != nil
	var sampled []*candidate
	if byConf && opt.PathSamples > 0 {
		sampled = m.pathCandidates(r, gv, opt)
	}
	props := m.proposals(r, cache, opt, sampled)
	limit := opt.MaxRules
	if byConf {
		limit = opt.Candidates
	}
	hc := headCounter{r: r, gv: gv, opt: opt, limit: limit, sc: supportScratch{seed: opt.Seed}, examined: map[string]bool{}}
	// The bodies the beam proposes, best by score, until limit of them are
	// kept; then those the paths propose that were not examined already.
	for _, p := range props {
		if len(hc.kept) == limit {
			break
		}
		hc.consider(p.id, p.path, func() *candidate {
			c := m.makeRule(r, p.path)
			c.Score, c.Ranks = p.score, p.ranks
			return c
		})
	}
	for _, c := range sampled {
		if id := pathID(c.path); !hc.examined[id] && c.Score >= opt.PathMinScore {
			hc.consider(id, c.path, func() *candidate { return c })
		}
	}
	if len(hc.kept) == 0 {
		return nil
	}
	var cands []*candidate
	if byConf && hc.counted > 0 {
		cands = hc.chooseByConfidence()
	} else {
		cands = chooseByScore(hc.kept, opt.MaxRules)
	}
	out := make([]MinedRule, len(cands))
	for i, c := range cands {
		out[i] = c.MinedRule
	}
	return out
}

// pathCandidates are the bodies the graph proposes for head relation r:
// the paths between the ends of opt.PathSamples sampled facts of r (at most
// opt.PathCandidates of them, those joining the most sampled facts first).
func (m *Model) pathCandidates(r int, gv *Graph, opt ExtractOptions) []*candidate {
	R := m.numRel()
	var sampled []*candidate
	rng := rand.New(rand.NewPCG(opt.Seed, pathSeedSalt+uint64(r)))
	for _, p := range gv.samplePaths(r, pathLen(opt.PathLen, m.lay.nT), opt.PathSamples, opt.PathBudget, 1, rng, &pathScratch{}) {
		if c := m.makeRule(r, p.steps(R)); c != nil {
			sampled = append(sampled, c)
		}
		if len(sampled) == opt.PathCandidates {
			break
		}
	}
	return sampled
}

// pathLen is the longest body the path samples propose: opt (PathLen),
// or the model's T when it is 0.
func pathLen(opt, T int) int {
	if opt > 0 {
		return opt
	}
	return T
}

// proposal is a body the beam proposes. The beam proposes up to 2·Beam
// bodies; only those headRules reaches and keeps become rules. Until then a
// proposal is its path (which determines the rule: a chain from A to B) and
// scores, and its canonical key is computed only to order proposals of
// equal scores, so that neither the memory nor the time of extracting a
// head grows with the beam times the rule size.
type proposal struct {
	id    string // pathID(path)
	key   string // the rule's canonical key, once needed
	path  []pathStep
	score float64
	ranks []float64
}

// proposals runs the beam search for the query r and for inv_r (read the
// other way round) and returns the bodies it proposes, merged by path
// keeping the higher score, best score first (ties by canonical key). On
// the way it scores the sampled bodies exactly from the attention (the
// higher of the two directions).
func (m *Model) proposals(r int, cache *attnCache, opt ExtractOptions, sampled []*candidate) []*proposal {
	R := m.numRel()
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
			if tautology(r, path) {
				continue
			}
			id := pathID(path)
			if old, ok := best[id]; !ok || c.score > old.score {
				best[id] = &proposal{id: id, path: path, score: c.score, ranks: c.ranks}
			}
		}
	}
	props := make([]*proposal, 0, len(best))
	for _, p := range best {
		props = append(props, p)
	}
	keyOf := func(p *proposal) string {
		if p.key == "" {
			p.key = m.makeRule(r, p.path).key
		}
		return p.key
	}
	slices.SortFunc(props, func(a, b *proposal) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(keyOf(a), keyOf(b))
	})
	return props
}

// headCounter counts the support of the bodies of head relation r on the
// graph gv (nil: none) and keeps those that hold, within the head's
// counting budget.
type headCounter struct {
	r        int
	gv       *Graph
	opt      ExtractOptions
	limit    int
	sc       supportScratch
	examined map[string]bool
	kept     []*candidate
	counted  int // kept bodies with support
}

// consider counts the body path (identified by id) and keeps it (built
// by build) unless it has no grounding or too little support.
func (hc *headCounter) consider(id string, path []pathStep, build func() *candidate) {
	opt := hc.opt
	hc.examined[id] = true
	if hc.gv == nil {
		hc.kept = append(hc.kept, build())
		return
	}
	if hc.sc.work > opt.HeadBudget {
		return // the head's counting budget is spent: left out
	}
	w0 := hc.sc.work
	n := hc.gv.support(hc.r, path, opt.SupportBudget, &hc.sc)
	if n.body == 0 && !opt.KeepVacuous {
		return
	}
	if opt.MinSupport > 0 && n.sup < opt.MinSupport && !(n.body == 0 && opt.KeepVacuous) {
		return
	}
	c := build()
	c.setCounts(n, opt.Smoothing, hc.sc.work-w0)
	if n.sup > 0 {
		hc.counted++
	}
	hc.kept = append(hc.kept, c)
}

// chooseByConfidence lets the graph choose among the candidates DRUM
// proposed: the MaxRules best by smoothed confidence (their weight), then
// by score.
func (hc *headCounter) chooseByConfidence() []*candidate {
	cands := hc.kept[:0]
	for _, c := range hc.kept {
		if c.Counted && c.Support > 0 {
			c.Rule.Weight = roundSig(c.smooth, 4)
			c.Calibrated = true
			cands = append(cands, c)
		}
	}
	byWeight := func(a, b *candidate) int { return cmp.Compare(b.Rule.Weight, a.Rule.Weight) }
	slices.SortStableFunc(cands, byWeight)
	// Estimated counts order a head's near-ties by chance (equivalent
	// bodies through a hub have equal confidences): the best rules'
	// estimates are counted again exactly where that is affordable.
	if recountBest(hc.gv, hc.r, cands, hc.opt, &hc.sc) {
		slices.SortStableFunc(cands, byWeight)
	}
	return cands[:min(len(cands), hc.opt.MaxRules)]
}

// chooseByScore keeps the maxRules first candidates (the best by score),
// weighted by their score over the best's.
func chooseByScore(cands []*candidate, maxRules int) []*candidate {
	top := cands[0].Score
	cands = cands[:min(len(cands), maxRules)]
	for _, c := range cands {
		c.Rule.Weight = roundSig(c.Score/top, 4)
	}
	return cands
}

// Recounting the best rules' estimated support: the first recountTop rules
// of a head (by weight) whose counts are estimated are counted again
// without a sample when the estimate projects at most recountVisits edge
// visits (its visits scaled from the starts sampled to all of them).
const (
	recountTop    = 25
	recountVisits = 5_000_000
)

// recountBest counts the estimated support of cands' best rules again,
// exactly (see recountTop), updating their counts and weights; it reports
// whether any changed.
func recountBest(gv *Graph, r int, cands []*candidate, opt ExtractOptions, sc *supportScratch) bool {
	if gv == nil {
		return false
	}
	changed := false
	for _, c := range cands[:min(len(cands), recountTop)] {
		if c.Sampled == 0 || int64(c.visits)*int64(c.Starts)/int64(c.Sampled) > recountVisits {
			continue
		}
		w0 := sc.work
		n := gv.support(r, c.path, 2*recountVisits, sc)
		c.setCounts(n, opt.Smoothing, sc.work-w0)
		c.Rule.Weight = roundSig(c.smooth, 4)
		changed = true
	}
	return changed
}

// setCounts records a rule's support count n (visits: the edge visits it
// took) and the confidences it gives.
func (c *candidate) setCounts(n bodyCount, smoothing, visits int) {
	c.Counted, c.Support, c.Body, c.visits = true, n.sup, n.body, visits
	c.Sampled, c.Starts = 0, 0
	if n.estimated() {
		c.Sampled, c.Starts = n.done, n.starts
	}
	c.Confidence = 0
	if n.body > 0 {
		c.Confidence = float64(n.sup) / float64(n.body)
	}
	c.smooth = float64(n.sup) / float64(n.body+smoothing)
}

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

// tautology reports whether head(A, B) :- path is head(A, B) :- head(A, B).
func tautology(head int, path []pathStep) bool {
	return len(path) == 1 && path[0].rel == head && !path[0].rev
}

// pathID identifies a path (and so the chain rule it is the body of) as a
// string: per step, the relation's index and the direction.
func pathID(path []pathStep) string {
	b := make([]byte, 0, 5*len(path))
	for _, st := range path {
		v := uint32(st.rel) << 1
		if st.rev {
			v |= 1
		}
		b = binary.AppendUvarint(b, uint64(v))
	}
	return string(b)
}

// makeRule builds head(A, B) :- path from A to B, or nil for a tautology.
func (m *Model) makeRule(head int, path []pathStep) *candidate {
	if tautology(head, path) {
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
	// The body: the path's atoms and up to three comparisons, allocated once.
	rule := datalog.Rule{Weight: 1, Head: datalog.Atom{Pred: m.rels[head], Args: []datalog.Term{v("A"), v("B")}},
		Body: make([]datalog.Literal, 0, n+3)}
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
	if n == 3 {
		// Object identity along the path A -> C -> D -> B: it does not come
		// back to A, and does not visit B before its last step (support3
		// counts so).
		rule.Body = append(rule.Body,
			datalog.Literal{Kind: datalog.Comparison, Op: datalog.OpNe, Left: v("A"), Right: v("D")},
			datalog.Literal{Kind: datalog.Comparison, Op: datalog.OpNe, Left: v("C"), Right: v("B")})
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
