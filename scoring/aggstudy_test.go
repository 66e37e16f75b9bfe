package scoring

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/drumql/drumql/internal/noisyor"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/parser"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// BenchmarkAggregationStudy measures, on a store's valid split, what two
// ways of learning how rules combine would add to the aggregation drumql
// mine chooses today (per relation among max, noisy_or(top = 3) and
// noisy_or(top = 10)), each chosen per relation by two-fold
// cross-validation on valid (chosen on one half, scored on the other):
//
//   - weighted: noisy-or with a fitted weight per rank position,
//     1 − Π(1 − c_i)^w_i over a candidate's 10 best rules (coordinate ascent
//     of the MRR over a grid of weights in [0, 1], w_1 = 1);
//   - grouped: SAFRAN's non-redundant noisy-or, rules whose predictions on
//     the valid queries overlap (linkpred.RuleSketches, Jaccard ≥ t) grouped
//     by single linkage, max inside a group, noisy-or over the top k groups
//     (what `eval --combine grouped` ranks by, with k and t chosen).
//
// Only queries whose answer some rule reaches are ranked differently by
// these; the metrics are their reciprocal ranks summed over all valid
// queries (the MRR's share that aggregation decides). Set
// DRUMQL_STUDY_DB (a store) and DRUMQL_STUDY_RULES (its mined file);
// bench/aggregation-study.sh runs it per dataset.
func BenchmarkAggregationStudy(b *testing.B) {
	db, rules := os.Getenv("DRUMQL_STUDY_DB"), os.Getenv("DRUMQL_STUDY_RULES")
	if db == "" || rules == "" {
		b.Skip("set DRUMQL_STUDY_DB and DRUMQL_STUDY_RULES (see bench/aggregation-study.sh)")
	}
	for range b.N {
		s := runStudy(b, db, rules)
		b.ReportMetric(s.base, "base-mrr")
		b.ReportMetric(s.weighted-s.base, "weighted-gain")
		b.ReportMetric(s.grouped-s.base, "grouped-gain")
		b.ReportMetric(float64(s.reached)/float64(s.queries), "reached")
		fmt.Fprintf(os.Stderr, "%d valid queries, %d reached; cross-validated per relation: base %.4f, +weighted %.4f (%+.4f), +grouped %.4f (%+.4f)\n",
			s.queries, s.reached, s.base, s.weighted, s.weighted-s.base, s.grouped, s.grouped-s.base)
	}
}

type studyResult struct {
	queries, reached        int
	base, weighted, grouped float64
}

const (
	studyK = 10 // rank positions weighed
)

// studyCand is one candidate of a study query: its rule hits and its best
// distinct rule confidences (highest first, at most studyK) as -log(1 - c).
type studyCand struct {
	hits []linkpred.RuleConf
	logs []float64
}

type studyQuery struct {
	rel    store.ID
	answer studyCand
	above  int         // candidates above the answer under every variant
	others []studyCand // the rest that a variant could rank either side
}

func newStudyCand(hits []linkpred.RuleConf) studyCand {
	best := linkpred.BestPerRule(nil, slices.Clone(hits))
	best = best[:min(len(best), studyK)]
	logs := make([]float64, len(best))
	for i, c := range best {
		logs[i] = -math.Log(max(1-float64(c), 0))
	}
	return studyCand{hits: hits, logs: logs}
}

func runStudy(b *testing.B, db, rules string) studyResult {
	ctx := context.Background()
	st, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	prog, err := parser.ParseFile(rules)
	if err != nil {
		b.Fatal(err)
	}
	qs, err := ValidQueries(st)
	if err != nil || len(qs) == 0 {
		b.Fatalf("no valid queries (%v)", err)
	}
	filter, err := linkpred.NewFilterFor(st, qs)
	if err != nil {
		b.Fatal(err)
	}
	rs, _, err := NewRuleScorer(ctx, st, nil, prog, AggOverride{}, qs, filter)
	if err != nil {
		b.Fatal(err)
	}
	sk := linkpred.NewRuleSketches(len(prog.Rules))
	var sqs []studyQuery
	for qi, q := range qs {
		known := filter.Answers(q)
		var ans []linkpred.RuleConf
		var cands [][]linkpred.RuleConf
		err := rs.hitsAbove(ctx, q, 0, func(id store.ID, hits []reasoner.RuleScore) {
			hs := make([]linkpred.RuleConf, len(hits))
			for i, h := range hits {
				hs[i] = linkpred.RuleConf{Rule: h.Rule, Conf: float32(h.Score)}
				sk.Add(int(h.Rule), linkpred.PairKey(uint32(qi), id))
			}
			if rs.pos.of(id) < 0 {
				return
			}
			if id == q.Answer {
				ans = hs
				return
			}
			if _, ok := slices.BinarySearch(known, id); !ok {
				cands = append(cands, hs)
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		if len(ans) == 0 {
			continue
		}
		// Every variant scores a candidate between its best confidence and
		// the noisy-or of all its rules.
		lo := func(hs []linkpred.RuleConf) float64 {
			m := float32(0)
			for _, h := range hs {
				m = max(m, h.Conf)
			}
			return float64(m)
		}
		hi := func(hs []linkpred.RuleConf) float64 {
			cs := make([]float32, len(hs))
			for i, h := range hs {
				cs[i] = h.Conf
			}
			return noisyor.Of(cs)
		}
		sq := studyQuery{rel: q.Rel, answer: newStudyCand(ans)}
		alo, ahi := lo(ans), hi(ans)
		for _, c := range cands {
			switch {
			case hi(c) < alo:
			case lo(c) > ahi:
				sq.above++
			default:
				sq.others = append(sq.others, newStudyCand(c))
			}
		}
		sqs = append(sqs, sq)
	}
	return studyVariants(sk, sqs, len(qs))
}

// studyVariant ranks a candidate: by position weights w over its logs, or
// by rule groups g (nil: none) with noisy-or over the top groups (0: all;
// -1: max). Ties are broken by the candidate's confidences.
type studyVariant struct {
	w   []float64
	g   []int32
	top int
}

func (v *studyVariant) key(c *studyCand) (float64, []float32) {
	if v.w != nil {
		s := 0.0
		for i, l := range c.logs {
			if i < len(v.w) && v.w[i] != 0 {
				s += v.w[i] * l
			}
		}
		return s, nil
	}
	best := map[int32]float32{}
	for _, h := range c.hits {
		k := h.Rule
		if v.g != nil {
			k = v.g[h.Rule]
		}
		best[k] = max(best[k], h.Conf)
	}
	cs := make([]float32, 0, len(best))
	for _, x := range best {
		cs = append(cs, x)
	}
	slices.Sort(cs)
	slices.Reverse(cs)
	switch {
	case v.top < 0:
		return float64(cs[0]), cs
	case v.top > 0 && v.top < len(cs):
		return float64(float32(noisyor.Of(cs[:v.top]))), cs
	}
	return float64(float32(noisyor.Of(cs))), cs
}

func (v *studyVariant) rr(q *studyQuery) float64 {
	as, at := v.key(&q.answer)
	gt, eq := q.above, 0
	for i := range q.others {
		s, t := v.key(&q.others[i])
		c := 0
		switch {
		case s > as:
			c = 1
		case s < as:
			c = -1
		case v.w != nil:
			c = slices.Compare(q.others[i].logs, q.answer.logs)
		default:
			c = slices.Compare(t, at)
		}
		if c > 0 {
			gt++
		} else if c == 0 {
			eq++
		}
	}
	return linkpred.Rank{L: 1 + gt, H: 1 + gt + eq}.Reciprocal(linkpred.Expected)
}

// studyGrid are the values a position weight may take.
var studyGrid = []float64{0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1}

func meanRR(v *studyVariant, qs []*studyQuery) float64 {
	t := 0.0
	for _, q := range qs {
		t += v.rr(q)
	}
	return t
}

// fitWeights improves position weights from start by coordinate ascent of
// the reciprocal ranks of qs.
func fitWeights(qs []*studyQuery, start []float64) []float64 {
	v := &studyVariant{w: slices.Clone(start)}
	best := meanRR(v, qs)
	for range 3 {
		improved := false
		for i := 1; i < len(v.w); i++ {
			keep := v.w[i]
			for _, x := range studyGrid {
				if x == keep {
					continue
				}
				v.w[i] = x
				if s := meanRR(v, qs); s > best+1e-12 {
					best, keep, improved = s, x, true
				}
			}
			v.w[i] = keep
		}
		if !improved {
			break
		}
	}
	return v.w
}

func studyVariants(sk *linkpred.RuleSketches, sqs []studyQuery, queries int) studyResult {
	base := []*studyVariant{{top: -1}, {top: 3}, {top: 10}}
	var grouped []*studyVariant
	for _, t := range []float64{0.2, 0.3, 0.5, 0.7, 0.9} {
		g := sk.Groups(t)
		for _, top := range []int{-1, 3, 10, 0} {
			grouped = append(grouped, &studyVariant{g: g, top: top})
		}
	}
	byRel := map[store.ID][]*studyQuery{}
	var rels []store.ID
	for i := range sqs {
		q := &sqs[i]
		if byRel[q.rel] == nil {
			rels = append(rels, q.rel)
		}
		byRel[q.rel] = append(byRel[q.rel], q)
	}
	res := studyResult{queries: queries, reached: len(sqs)}
	for _, rel := range rels {
		all := byRel[rel]
		var folds [2][]*studyQuery
		for i, q := range all {
			folds[i%2] = append(folds[i%2], q)
		}
		if len(all) < TuneMinQueries {
			s := meanRR(base[1], all)
			res.base, res.weighted, res.grouped = res.base+s, res.weighted+s, res.grouped+s
			continue
		}
		pick := func(vs []*studyVariant, on []*studyQuery) *studyVariant {
			b, bs := vs[0], meanRR(vs[0], on)
			for _, v := range vs[1:] {
				if s := meanRR(v, on); s > bs+1e-12 {
					b, bs = v, s
				}
			}
			return b
		}
		for f := range 2 {
			train, held := folds[f], folds[1-f]
			b := pick(base, train)
			res.base += meanRR(b, held)
			res.grouped += meanRR(pick(append(slices.Clone(base), grouped...), train), held)
			// Weights start from the base choice as weights.
			w := make([]float64, studyK)
			w[0] = 1
			if b.top != -1 {
				for i := range min(b.top, studyK) {
					w[i] = 1
				}
			}
			fitted := &studyVariant{w: fitWeights(train, w)}
			res.weighted += meanRR(pick([]*studyVariant{b, fitted}, train), held)
		}
	}
	n := float64(queries)
	res.base, res.weighted, res.grouped = res.base/n, res.weighted/n, res.grouped/n
	return res
}
