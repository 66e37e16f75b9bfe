package linkpred

import (
	"cmp"
	"math"
	"slices"

	"github.com/drumql/drumql/internal/noisyor"
)

// RuleConf is one rule's prediction of a candidate: the rule's index (in
// whatever rule list the scorer uses) and the confidence of the prediction,
// in (0, 1].
type RuleConf struct {
	Rule int32
	Conf float32
}

// Aggregator turns the rule predictions of one candidate into its ranking
// key. It appends the key to dst and returns the extended slice: the first
// appended value is the candidate's score, the rest break ties
// lexicographically (see [Candidate]). An aggregator may reorder hits. A rule
// listed more than once for a candidate counts once, with its highest
// confidence. With no hits, the key is the single score 0.
type Aggregator func(dst []float32, hits []RuleConf) []float32

// byRuleThenConf sorts by rule index, highest confidence first.
func byRuleThenConf(a, b RuleConf) int {
	if c := cmp.Compare(a.Rule, b.Rule); c != 0 {
		return c
	}
	return descending(a.Conf, b.Conf)
}

// descending orders confidences highest first, with plain comparisons
// (confidences are never NaN).
func descending(a, b float32) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// BestPerRule appends the highest confidence of each distinct rule in hits
// to dst, sorted in decreasing order. It reorders hits.
func BestPerRule(dst []float32, hits []RuleConf) []float32 {
	slices.SortFunc(hits, byRuleThenConf)
	start := len(dst)
	for i, h := range hits {
		if i > 0 && hits[i-1].Rule == h.Rule {
			continue
		}
		dst = append(dst, h.Conf)
	}
	slices.SortFunc(dst[start:], descending)
	return dst
}

// BestScratch is the memory of [BestScratch.BestPerRule], reusable across
// calls (not concurrently).
type BestScratch struct {
	pos   []int32  // rule -> index of its confidence in dst
	stamp []uint32 // rule -> the call that last saw it
	epoch uint32
}

// BestPerRule is [BestPerRule] (the same values, in the same order) by
// marking each rule index once instead of sorting the hits by rule; it
// leaves hits as they are. Rule indices must be non-negative.
func (s *BestScratch) BestPerRule(dst []float32, hits []RuleConf) []float32 {
	start := len(dst)
	dst = s.Distinct(dst, hits)
	slices.Sort(dst[start:])
	slices.Reverse(dst[start:])
	return dst
}

// Distinct appends the highest confidence of each distinct rule in hits to
// dst, in no particular order: [BestScratch.BestPerRule] without the sort,
// for a [LazyReduction]. It leaves hits as they are. Rule indices must be
// non-negative.
func (s *BestScratch) Distinct(dst []float32, hits []RuleConf) []float32 {
	s.epoch++
	if s.epoch == 0 {
		clear(s.stamp)
		s.epoch = 1
	}
	for _, h := range hits {
		r := int(h.Rule)
		if r >= len(s.pos) {
			n := max(2*len(s.pos), r+1)
			s.pos = append(s.pos, make([]int32, n-len(s.pos))...)
			s.stamp = append(s.stamp, make([]uint32, n-len(s.stamp))...)
		}
		if s.stamp[r] != s.epoch {
			s.stamp[r], s.pos[r] = s.epoch, int32(len(dst))
			dst = append(dst, h.Conf)
		} else if i := s.pos[r]; h.Conf > dst[i] {
			dst[i] = h.Conf
		}
	}
	return dst
}

// LazyReduction is a [Reduction] computed from a candidate's distinct rule
// confidences in any order (confs, never empty; it may reorder them): it
// returns the candidate's score and the tie-breakers of its key, unsorted,
// as a sub-slice of confs. The key is the one the reduction gives the same
// confidences sorted (see [Scores.AddLazy]): sorting each candidate's
// confidences, hundreds through a hub, cost more than applying the rules,
// and only a candidate whose score equals the answer's needs them sorted.
type LazyReduction func(confs []float32) (score float32, ties []float32)

// MaxLazy is [MaxReduction] as a LazyReduction.
func MaxLazy(confs []float32) (float32, []float32) {
	m := 0
	for i, c := range confs {
		if c > confs[m] {
			m = i
		}
	}
	confs[0], confs[m] = confs[m], confs[0]
	return confs[0], confs[1:]
}

// lazyTopMax is the largest top of [NoisyOrLazy]: its top confidences are
// kept sorted by insertion.
const lazyTopMax = 16

// NoisyOrLazy is [NoisyOrReduction](topK) as a LazyReduction, for topK in
// [1, 16]; nil otherwise (noisy-or over all the confidences takes them
// sorted, which is what the lazy form avoids).
func NoisyOrLazy(topK int) LazyReduction {
	if topK < 1 || topK > lazyTopMax {
		return nil
	}
	return func(confs []float32) (float32, []float32) {
		var buf [lazyTopMax]float32
		n := 0
		for _, c := range confs {
			if n == topK && c <= buf[n-1] {
				continue
			}
			i := min(n, topK-1)
			for i > 0 && buf[i-1] < c {
				buf[i] = buf[i-1]
				i--
			}
			buf[i] = c
			n = min(n+1, topK)
		}
		return float32(noisyor.Of(buf[:n])), confs
	}
}

// Reduction is an aggregator that depends only on a candidate's distinct
// rule confidences, highest first (what [BestPerRule] appends): given them
// in dst[start:], it turns them into the candidate's ranking key in place
// and returns the extended slice. [Max] and [NoisyOr] are reductions
// ([MaxReduction], [NoisyOrReduction]), so a caller that ranks the same
// hits under several of them can compute the confidences once.
type Reduction func(dst []float32, start int) []float32

// MaxReduction is the reduction of [Max].
func MaxReduction(dst []float32, start int) []float32 {
	if len(dst) == start {
		return append(dst, 0)
	}
	return dst
}

// NoisyOrReduction is the reduction of [NoisyOr](topK).
func NoisyOrReduction(topK int) Reduction {
	return func(dst []float32, start int) []float32 {
		confs := dst[start:]
		n := len(confs)
		if topK > 0 && len(confs) > topK {
			confs = confs[:topK]
		}
		return withScore(dst, start, n, float32(noisyor.Of(confs)))
	}
}

// Max ranks candidates AnyBURL-style by their best rule confidence, ties
// broken by the next-best confidences: the key is the candidate's distinct
// rule confidences sorted in decreasing order, compared lexicographically. It
// is the default for rule-based link prediction.
func Max(dst []float32, hits []RuleConf) []float32 {
	start := len(dst)
	return MaxReduction(BestPerRule(dst, hits), start)
}

// NoisyOr returns an aggregator that scores a candidate by
// 1 − Π(1 − c_i) over its topK highest distinct rule confidences (all of them
// if topK <= 0). Confidences are clamped to [0, 1]. Ties (a noisy-or of
// many rules rounds to 1 in float32; two candidates share their top rules)
// are broken by all the candidate's confidences, highest first, as [Max]
// does.
func NoisyOr(topK int) Aggregator {
	red := NoisyOrReduction(topK)
	return func(dst []float32, hits []RuleConf) []float32 {
		start := len(dst)
		return red(BestPerRule(dst, hits), start)
	}
}

// withScore turns dst[start:start+n] (confidences, highest first) into the
// key (score, confidences...), dropping what follows them.
func withScore(dst []float32, start, n int, score float32) []float32 {
	dst = append(dst[:start+n], 0)
	copy(dst[start+1:], dst[start:start+n])
	dst[start] = score
	return dst
}

// GroupedNoisyOr returns an aggregator for redundant rules (SAFRAN's idea):
// rules are partitioned into groups, group[rule] giving the group of each
// rule index (see [RuleSketches.Groups]); a candidate's score is the noisy-or, across
// groups, of the highest confidence inside each group. A rule index outside
// group is a group of its own. Confidences are clamped to [0, 1]. Ties are
// broken by the groups' confidences, highest first.
func GroupedNoisyOr(group []int32) Aggregator {
	// gid maps a rule to a group key that never collides: known groups are
	// non-negative, ungrouped rules get -1-rule.
	return GroupedNoisyOrBy(func(rule int32) int64 {
		if rule >= 0 && int(rule) < len(group) {
			return int64(group[rule])
		}
		return -1 - int64(rule)
	})
}

// GroupedNoisyOrBy is [GroupedNoisyOr] with the groups given by gid: two
// rules are in one group when gid gives them the same key.
func GroupedNoisyOrBy(gid func(rule int32) int64) Aggregator {
	return func(dst []float32, hits []RuleConf) []float32 {
		start := len(dst)
		if len(hits) <= groupedSmall {
			// Few hits (the common case): each rule's group looked up once,
			// the best of each group kept in place, no sort of the hits.
			var keys [groupedSmall]int64
			n := 0
			for _, h := range hits {
				k := gid(h.Rule)
				j := 0
				for j < n && keys[j] != k {
					j++
				}
				switch {
				case j == n:
					keys[n], n = k, n+1
					dst = append(dst, h.Conf)
				case h.Conf > dst[start+j]:
					dst[start+j] = h.Conf
				}
			}
			confs := dst[start:]
			slices.SortFunc(confs, func(a, b float32) int { return cmp.Compare(b, a) })
			return withScore(dst, start, len(confs), float32(noisyor.Of(confs)))
		}
		slices.SortFunc(hits, func(a, b RuleConf) int {
			if c := cmp.Compare(gid(a.Rule), gid(b.Rule)); c != 0 {
				return c
			}
			return cmp.Compare(b.Conf, a.Conf)
		})
		for i, h := range hits {
			if i > 0 && gid(hits[i-1].Rule) == gid(h.Rule) {
				continue
			}
			dst = append(dst, h.Conf)
		}
		confs := dst[start:]
		slices.SortFunc(confs, func(a, b float32) int { return cmp.Compare(b, a) })
		return withScore(dst, start, len(confs), float32(noisyor.Of(confs)))
	}
}

// groupedSmall is the largest number of hits [GroupedNoisyOrBy] groups
// without sorting them.
const groupedSmall = 32

// PairKey packs a (query, entity) pair into one prediction key for
// [RuleSketches.Add].
func PairKey(query, entity uint32) uint64 {
	return uint64(query)<<32 | uint64(entity)
}

// SketchSize is the number of hashes a [RuleSketches] keeps per rule.
const SketchSize = 64

// RuleSketches summarises each rule's set of predictions in bounded memory
// for [RuleSketches.Groups]: the SketchSize smallest hashes of its keys (a
// bottom-k sketch), whatever the number of predictions. A rule through a hub
// predicts most entities for every query; a list of its predictions, kept
// for each rule of a large mined file, outgrew the machine.
type RuleSketches struct {
	s [][]uint64 // per rule: a max-heap of its smallest hashes, distinct
}

// NewRuleSketches returns empty sketches for rules 0..n-1.
func NewRuleSketches(n int) *RuleSketches {
	return &RuleSketches{s: make([][]uint64, n)}
}

// hashKey mixes a prediction key (splitmix64's finaliser), so the smallest
// hashes are a uniform sample of the keys.
func hashKey(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// Add records that rule predicts key (for example the [PairKey] of a query
// and an entity); a key added twice counts once.
func (r *RuleSketches) Add(rule int, key uint64) {
	h := hashKey(key)
	s := r.s[rule]
	if len(s) == SketchSize && h >= s[0] || slices.Contains(s, h) {
		return
	}
	if len(s) < SketchSize {
		s = append(s, h)
		for i := len(s) - 1; i > 0 && s[(i-1)/2] < s[i]; i = (i - 1) / 2 {
			s[(i-1)/2], s[i] = s[i], s[(i-1)/2]
		}
		r.s[rule] = s
		return
	}
	s[0] = h
	for i := 0; ; {
		l, rt, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l] > s[m] {
			m = l
		}
		if rt < len(s) && s[rt] > s[m] {
			m = rt
		}
		if m == i {
			return
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
}

// Compact returns the sketches of the rules that have a prediction, in
// order: rules[k] is the index in r of the rule whose sketch is the k-th of
// c. The groups of c are those of r for these rules; every other rule of r
// is a group of its own.
func (r *RuleSketches) Compact() (rules []int32, c *RuleSketches) {
	c = &RuleSketches{}
	for i, s := range r.s {
		if len(s) > 0 {
			rules = append(rules, int32(i))
			c.s = append(c.s, s)
		}
	}
	return rules, c
}

// jaccard estimates the Jaccard overlap of two sets from their sorted
// sketches: exactly when both sets have fewer than SketchSize keys (the
// sketches are the sets), else as the share of the SketchSize smallest
// hashes of the union that both sets hold.
func jaccard(x, y []uint64) float64 {
	limit := SketchSize
	if len(x) < SketchSize && len(y) < SketchSize {
		limit = len(x) + len(y)
	}
	i, j, n, both := 0, 0, 0, 0
	for n < limit && (i < len(x) || j < len(y)) {
		switch {
		case j >= len(y) || i < len(x) && x[i] < y[j]:
			i++
		case i >= len(x) || y[j] < x[i]:
			j++
		default:
			i, j, both = i+1, j+1, both+1
		}
		n++
	}
	if n == 0 {
		return 0
	}
	return float64(both) / float64(n)
}

// Groups groups redundant rules: two rules are linked when the Jaccard
// overlap of their predictions, estimated from the sketches (exact while
// both rules have fewer than SketchSize predictions), is at least
// minJaccard and positive. Groups are the connected components of that
// graph (single linkage); a rule with no predictions is a group of its
// own. It returns group[i] for every rule, numbered 0, 1, ... in order of
// each group's first rule. It is deterministic.
func (r *RuleSketches) Groups(minJaccard float64) []int32 {
	return r.GroupsAt([]float64{minJaccard})[0]
}

// GroupsAt returns the groups of [RuleSketches.Groups] at each overlap of
// mins, in order, from one pass over the pairs of rules: the Jaccard
// overlap of each pair is estimated once for all of them.
func (r *RuleSketches) GroupsAt(mins []float64) [][]int32 {
	if len(mins) == 0 {
		return nil
	}
	n := len(r.s)
	sets := make([][]uint64, n)
	postings := make(map[uint64][]int32)
	for i, s := range r.s {
		s = slices.Clone(s)
		slices.Sort(s)
		sets[i] = s
		for _, k := range s {
			postings[k] = append(postings[k], int32(i))
		}
	}
	parents := make([][]int32, len(mins))
	for t := range parents {
		parents[t] = make([]int32, n)
		for i := range parents[t] {
			parents[t][i] = int32(i)
		}
	}
	// A pair already joined at the highest overlap is joined at every
	// one (a link at an overlap is a link at each lower one), and a pair
	// whose exact overlap cannot reach the lowest is linked at none: the
	// estimate is skipped for both, which changes no group.
	top, low := 0, math.Inf(1)
	for t, m := range mins {
		if m > mins[top] {
			top = t
		}
		low = min(low, m)
	}
	seen := make([]int32, n) // seen[j] == i+1: pair (i, j) done
	for i, s := range sets {
		for _, k := range s {
			for _, j := range postings[k] {
				if int(j) <= i || seen[j] == int32(i+1) {
					continue
				}
				seen[j] = int32(i + 1)
				if find(parents[top], int32(i)) == find(parents[top], j) {
					continue
				}
				if x, y := len(s), len(sets[j]); x < SketchSize && y < SketchSize && float64(min(x, y)) < low*float64(max(x, y)) {
					continue // |x ∩ y| / |x ∪ y| <= min / max
				}
				jac := jaccard(s, sets[j])
				if jac <= 0 {
					continue
				}
				for t, m := range mins {
					if jac >= m {
						union(parents[t], int32(i), j)
					}
				}
			}
		}
	}
	out := make([][]int32, len(mins))
	for t, parent := range parents {
		out[t] = numberGroups(parent)
	}
	return out
}

// find returns the root of x in the union-find forest parent, halving the
// path on the way.
func find(parent []int32, x int32) int32 {
	for parent[x] != x {
		parent[x] = parent[parent[x]]
		x = parent[x]
	}
	return x
}

// union links x and y in parent; the smaller root becomes the root.
func union(parent []int32, x, y int32) {
	rx, ry := find(parent, x), find(parent, y)
	if rx != ry {
		parent[max(rx, ry)] = min(rx, ry)
	}
}

// numberGroups numbers the sets of the union-find forest parent 0, 1, ...
// in order of each set's first element and returns every element's number.
func numberGroups(parent []int32) []int32 {
	group := make([]int32, len(parent))
	ids := make(map[int32]int32)
	for i := range parent {
		root := find(parent, int32(i))
		g, ok := ids[root]
		if !ok {
			g = int32(len(ids))
			ids[root] = g
		}
		group[i] = g
	}
	return group
}
