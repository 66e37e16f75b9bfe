package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// evalCmd is drumql eval.
type evalCmd struct {
	Data    string   `placeholder:"DIR" help:"DRUM dataset folder to evaluate on (loaded in memory; default: the store at --db)." type:"path"`
	Model   string   `placeholder:"FILE" help:"A model saved by drumql mine --save-model (with --head-groups: its manifest, each relation scored by the model of its group). With --rules too: the rules rank the candidates and the model breaks their ties." type:"path"`
	Rules   []string `placeholder:"FILE.dl" help:"Rule files applied by the reasoner, query by query."`
	Split   string   `enum:"test,valid" default:"test" help:"Split to evaluate: test or valid."`
	Combine string   `enum:",max,noisy-or,grouped" default:"" help:"How the rules' confidences for a candidate combine (default: what the rule files' @aggregate directives say, max without one): max (ties broken by the next-best rules), noisy-or (over each candidate's top 5 rules) or grouped (noisy-or across groups of redundant rules, max inside a group)."`
	Format  string   `enum:"table,json" default:"table" help:"Output format: table or json."`
	Limit   int      `placeholder:"N" help:"Evaluate only the first N triples of the split (for a quick look)."`
	Prior   *bool    `negatable:"" help:"With --rules: rank the candidates no rule reaches by how many facts of the query's relation they fill the asked slot of in the graph (the rule r(X, c) weighted by c's share of r), instead of leaving them tied (with --model too: after the model's score). Default: what the rule files' @aggregate directives say (prior = 1), off without one; --no-prior turns it off."`
}

// Help is shown under the command's usage.
func (evalCmd) Help() string {
	return `Filtered link prediction: for every triple (h, r, t) of the split, t is ranked
among all entities for (h, r, ?) and h for (?, r, t); the other known true
triples (facts, train, valid, test) are filtered out. Ties are reported three
ways: optimistic (the original DRUM code), pessimistic, and expected (the mean
position in the tied block: the honest number).

Examples:
  drumql eval --data examples/family --model family.model
  drumql eval --data examples/family --rules family.dl --format json`
}

func (c *evalCmd) Run(e *env) error {
	if c.Model == "" && len(c.Rules) == 0 {
		return inputErr(fmt.Errorf("eval: give --model FILE, --rules FILE.dl, or both"))
	}
	if c.Prior != nil && len(c.Rules) == 0 {
		return inputErr(fmt.Errorf("eval: --prior breaks the ties of --rules"))
	}
	how := aggChoice{combine: c.Combine, prior: c.Prior}
	var st store.Store
	if c.Data != "" {
		b, err := store.ReadDataset(c.Data)
		if err != nil {
			return inputErr(err)
		}
		mem := store.NewMemory()
		if _, err := mem.Load(e.ctx, b, nil); err != nil {
			return err
		}
		st = mem
	} else {
		s, err := e.openStore(true)
		if err != nil {
			return err
		}
		st = s
	}
	defer st.Close()
	start := time.Now()
	var rep *linkpred.Report
	var err error
	if c.Model != "" {
		model, err := loadModel(c.Model)
		if err != nil {
			return err
		}
		g, err := miner.LoadGraph(e.ctx, st)
		if err != nil {
			return err
		}
		rep, err = evalModelLimit(e, st, g, model, c.Rules, how, c.Split, c.Limit, 0)
		if err != nil {
			return err
		}
	} else {
		rep, err = evalRules(e, st, c.Rules, c.Split, how, c.Limit)
		if err != nil {
			return err
		}
	}
	if c.Format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printMetrics(e.stdout, rep)
	if !e.cli.Quiet {
		fmt.Fprintf(e.stderr, "evaluated %d queries in %s\n", rep.Queries, time.Since(start).Round(10*time.Millisecond))
	}
	return nil
}

// splitQueries returns the queries of a split, both directions, at most
// limit triples (0: all).
func splitQueries(st store.Store, split string, limit int) ([]linkpred.Query, error) {
	qs, err := linkpred.Queries(st, split)
	if err != nil {
		return nil, inputErr(fmt.Errorf("eval: split %q: %w", split, err))
	}
	if limit > 0 && 2*limit < len(qs) {
		qs = qs[:2*limit]
	}
	return qs, nil
}

// evalModel evaluates a DRUM model on a split of st with one scorer, for
// drumql mine --eval: a scorer holds L·(T+1) entity × batch blocks, so one
// per core would take more memory than training did (the scorer runs the L
// ranks of a batch in parallel).
func evalModel(e *env, st store.Store, g *miner.Graph, model *modelSet, split string) (*linkpred.Report, error) {
	return evalModelLimit(e, st, g, model, nil, aggChoice{}, split, 0, 1)
}

// evalModelLimit evaluates a DRUM model on a split of st (the first limit
// triples when limit > 0) with at most workers scorers (0: one per core);
// with rule files, the rules rank the candidates and the model breaks their
// ties (see hybridScorer).
func evalModelLimit(e *env, st store.Store, g *miner.Graph, model *modelSet, ruleFiles []string, how aggChoice, split string, limit, workers int) (*linkpred.Report, error) {
	qs, err := splitQueries(st, split, limit)
	if err != nil {
		return nil, err
	}
	filter, err := linkpred.NewFilterFor(st, qs)
	if err != nil {
		return nil, err
	}
	snap := g.Snapshot()
	ents := linkpred.UnionEntities(snap.Entities, filter.Entities())
	pos := make(map[store.ID]int32, len(ents))
	for i, id := range ents {
		pos[id] = int32(i)
	}
	// graph index -> position in the entity list
	gpos := make([]int32, len(snap.Entities))
	for i, id := range snap.Entities {
		gpos[i] = pos[id]
	}
	scorer := newSetScorer(model, g, gpos, len(ents))
	if len(ruleFiles) > 0 {
		prog, err := loadRuleFlags(e, ruleFiles)
		if err != nil {
			return nil, err
		}
		rules, rents, err := newRuleScorer(e, st, snap, prog, how, qs, filter)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(rents, ents) {
			return nil, fmt.Errorf("eval: the rules and the model rank different entity lists (%d and %d entities)", len(rents), len(ents))
		}
		// The hybrid applies the prior itself, after the model's score.
		h := &hybridScorer{rules: rules, model: scorer, n: len(ents)}
		rules.hybrid = true
		rep, err := linkpred.Evaluate(e.ctx, qs, h, filter, linkpred.Options{Entities: ents, Workers: workers})
		if err == nil && scorer.unseen() > 0 {
			fmt.Fprintf(e.stderr, "eval: %d of the %d queries ask relations the model never learnt: the rules alone rank them\n",
				scorer.unseen(), len(qs))
		}
		return rep, err
	}
	rep, err := linkpred.Evaluate(e.ctx, qs, scorer, filter, linkpred.Options{Entities: ents, Workers: workers})
	if err == nil && scorer.unseen() > 0 {
		fmt.Fprintf(e.stderr, "eval: %d of the %d queries ask relations the model never learnt: they score 0 (unreached)\n",
			scorer.unseen(), len(qs))
	}
	return rep, err
}

// hybridScorer ranks the candidates by the rules (their aggregated
// confidence) and breaks the rules' ties, among them those of the many
// candidates no rule reaches, by the model's score.
type hybridScorer struct {
	rules sparseRules     // sparse scores; its prior, where it applies, is the last tie-breaker
	model linkpred.Scorer // dense scores over n entities
	n     int
}

// sparseRules is what a hybridScorer needs of the rules: their sparse
// scores, without the prior, and the prior of each relation.
type sparseRules interface {
	linkpred.Scorer
	// priorOf returns the slot prior that ranks relation rel's unreached
	// candidates, or nil.
	priorOf(rel store.ID) *linkpred.SlotPrior
}

func (h *hybridScorer) Score(ctx context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
	ms := make([]linkpred.Scores, len(qs))
	if err := h.model.Score(ctx, qs, ms); err != nil {
		return err
	}
	if err := h.rules.Score(ctx, qs, out); err != nil {
		return err
	}
	hit := make([]bool, h.n)
	for i, q := range qs {
		prior := h.rules.priorOf(q.Rel)
		w := 1
		if prior != nil {
			w = 2
		}
		// The key is (rule score, model score[, prior count]).
		dense := ms[i].Dense
		keys := make([]float32, w*len(dense))
		for p, m := range dense {
			keys[w*p] = m
		}
		var pents []int32
		if prior != nil {
			var counts []float32
			pents, counts = prior.Slot(q.Rel, q.Inverse)
			for k, p := range pents {
				keys[w*int(p)+1] = counts[k]
			}
		}
		key := func(p int32) []float32 { return keys[w*int(p) : w*int(p)+w : w*int(p)+w] }
		s := &out[i]
		for k := range s.Sparse {
			c := &s.Sparse[k]
			hit[c.Entity] = true
			c.Ties = key(c.Entity)
		}
		// Then the candidates only the model or only the prior reaches.
		add := func(p int32) {
			if !hit[p] {
				hit[p] = true
				s.Sparse = append(s.Sparse, linkpred.Candidate{Entity: p, Ties: key(p)})
			}
		}
		for p, m := range dense {
			if m != 0 {
				add(int32(p))
			}
		}
		for _, p := range pents {
			add(p)
		}
		for _, c := range s.Sparse {
			hit[c.Entity] = false
		}
	}
	return nil
}

// modelScorer adapts a DRUM model to linkpred.Scorer.
type modelScorer struct {
	model  *miner.Model
	g      *miner.Graph
	gpos   []int32
	n      int
	pool   chan *miner.Scorer
	rels   map[store.ID]string
	unseen atomic.Int64 // queries over relations the model cannot score
}

func (m *modelScorer) Score(ctx context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
	var sc *miner.Scorer
	select {
	case sc = <-m.pool:
	default:
		sc = m.model.NewScorer(m.g)
	}
	defer func() {
		select {
		case m.pool <- sc:
		default:
		}
	}()
	given := make([]int32, 0, len(qs))
	idx := make([]int, 0, len(qs))
	for i := range qs {
		out[i].SetDense(m.n) // zero scores for a given entity outside the graph
	}
	name, ok := m.rels[qs[0].Rel]
	if !ok {
		// A relation with no fact in the graph: nothing to propagate.
		m.unseen.Add(int64(len(qs)))
		return nil
	}
	for i, q := range qs {
		if gi, ok := m.g.EntityIndex(q.Given); ok {
			given = append(given, gi)
			idx = append(idx, i)
		}
	}
	if len(given) == 0 {
		return nil
	}
	// linkpred's Inverse means tail prediction (Given, Rel, ?), which the
	// miner asks as inv_r: the same convention.
	res, err := sc.Scores(ctx, name, qs[0].Inverse, given, nil)
	if errors.Is(err, miner.ErrUnknownRelation) {
		// A relation the model never learnt (mined with --heads, or new
		// since): every candidate scores 0, as for rules that reach nothing.
		m.unseen.Add(int64(len(qs)))
		return nil
	}
	if err != nil {
		return err
	}
	for k, i := range idx {
		d := out[i].Dense
		for gi, s := range res[k] {
			d[m.gpos[gi]] = s
		}
	}
	return nil
}

// relNames maps the graph's relation symbols to their names.
func relNames(g *miner.Graph) map[store.ID]string {
	names := g.Relations()
	m := make(map[store.ID]string, len(names))
	for i, id := range g.Snapshot().Relations {
		m[id] = names[i]
	}
	return m
}

// printMetrics prints the metrics table: a column group per tie policy.
func printMetrics(w io.Writer, r *linkpred.Report) {
	fmt.Fprintf(w, "%d queries (%d head, %d tail), filtered ranking\n\n", r.Queries, r.HeadQueries, r.TailQueries)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\toptimistic\t\t\t\tpessimistic\t\t\t\texpected\t\t\t\t")
	fmt.Fprintln(tw, "\tMRR\tH@10\tH@3\tH@1\tMRR\tH@10\tH@3\tH@1\tMRR\tH@10\tH@3\tH@1\t")
	row := func(name string, get func(*linkpred.Metrics) linkpred.Summary) {
		fmt.Fprintf(tw, "%s\t", name)
		for _, m := range []*linkpred.Metrics{&r.Optimistic, &r.Pessimistic, &r.Expected} {
			s := get(m)
			fmt.Fprintf(tw, "%.3f\t%.3f\t%.3f\t%.3f\t", s.MRR, s.Hits10, s.Hits3, s.Hits1)
		}
		fmt.Fprintln(tw)
	}
	row("all", func(m *linkpred.Metrics) linkpred.Summary { return m.Summary })
	row("head", func(m *linkpred.Metrics) linkpred.Summary { return m.Head })
	row("tail", func(m *linkpred.Metrics) linkpred.Summary { return m.Tail })
	tw.Flush()
}

// aggChoice is how the command line asks rules to be aggregated: combine
// ("" for the programs' @aggregate directives) and prior (nil for the
// directives).
type aggChoice struct {
	combine string
	prior   *bool
}

// evalRules evaluates rule files applied by the reasoner: every query is
// answered goal-directed from its given entity, and each candidate is scored
// by the aggregator over the confidences each rule gives it.
func evalRules(e *env, st store.Store, files []string, split string, how aggChoice, limit int) (*linkpred.Report, error) {
	qs, err := splitQueries(st, split, limit)
	if err != nil {
		return nil, err
	}
	filter, err := linkpred.NewFilterFor(st, qs)
	if err != nil {
		return nil, err
	}
	prog, err := loadRuleFlags(e, files)
	if err != nil {
		return nil, err
	}
	rs, ents, err := newRuleScorer(e, st, nil, prog, how, qs, filter)
	if err != nil {
		return nil, err
	}
	return linkpred.Evaluate(e.ctx, qs, rs, filter, linkpred.Options{Entities: ents, BatchSize: ruleBatch})
}

// ruleVariant is one way of ranking a query's candidates from its rules'
// confidences: an aggregator, and whether the slot prior ranks the
// candidates no rule reaches.
type ruleVariant struct {
	agg   linkpred.Aggregator
	red   linkpred.Reduction // agg as a reduction, or nil
	prior bool
	desc  datalog.Aggregate // what it is, for messages and directives
}

// ruleBatch is the number of queries per Score call when rules alone rank
// them. A batch only shares the work of a model's attention: the rules
// answer each query on its own, and every query of a batch holds its
// candidate lists (one per variant, up to every entity each) until the
// batch is ranked, so one query at a time keeps that memory to one query's
// worth per worker. The ranks do not depend on it.
const ruleBatch = 1

// newRuleScorer prepares the program's rules for the queries qs and returns
// the scorer with its entity list. Each relation is ranked as the program's
// @aggregate directives say, unless how overrides them. The grouped
// aggregator groups the rules by their predictions on qs (never by the
// answers). snap is st's snapshot when the caller holds one (nil: take it).
func newRuleScorer(e *env, st store.Store, snap *store.Snapshot, prog *datalog.Program, how aggChoice, qs []linkpred.Query, filter *linkpred.Filter) (*ruleScorer, []store.ID, error) {
	if snap == nil {
		var err error
		if snap, err = st.Snapshot(e.ctx); err != nil {
			return nil, nil, err
		}
	}
	ents := linkpred.UnionEntities(snap.Entities, filter.Entities())
	rs := &ruleScorer{eng: nil, pos: newEntityPos(ents), names: map[store.ID]string{}, byRel: map[store.ID]ruleVariant{}}
	for _, q := range qs {
		for _, id := range []store.ID{q.Rel, q.Given} {
			if _, ok := rs.names[id]; !ok {
				name, err := st.Name(id)
				if err != nil {
					return nil, nil, err
				}
				rs.names[id] = name
			}
		}
	}
	rs.slot = linkpred.NewSlotPrior(snap, ents)
	var err error
	rs.eng, err = reasoner.Prepare(e.ctx, st, prog, reasoner.Options{Min: reasoner.RankMin, BaseOnly: true, Snapshot: snap, LazyLoad: true})
	if err != nil {
		return nil, nil, err
	}
	// Groups of redundant rules, per threshold, computed on demand.
	groups := map[float64][]int32{}
	group := func(threshold float64) ([]int32, error) {
		if g, ok := groups[threshold]; ok {
			return g, nil
		}
		preds := make([][]uint64, len(prog.Rules))
		for qi, q := range qs {
			err := rs.hits(e.ctx, q, func(id store.ID, hits []reasoner.RuleScore) {
				for _, h := range hits {
					preds[h.Rule] = append(preds[h.Rule], linkpred.PairKey(uint32(qi), id))
				}
			})
			if err != nil {
				return nil, err
			}
		}
		g := linkpred.GroupRules(preds, threshold)
		groups[threshold] = g
		return g, nil
	}
	variantOf := func(a datalog.Aggregate) (ruleVariant, error) {
		switch how.combine {
		case "max":
			a = datalog.Aggregate{Method: "max", Params: a.Params}
		case "noisy-or":
			a = datalog.Aggregate{Method: "noisy_or", Params: []datalog.Param{{Name: "prior", Value: a.Value("prior")}}}
		case "grouped":
			a = datalog.Aggregate{Method: "grouped", Params: []datalog.Param{{Name: "prior", Value: a.Value("prior")}}}
		}
		if how.prior != nil {
			p := 0.0
			if *how.prior {
				p = 1
			}
			a.Params = append(slices.DeleteFunc(slices.Clone(a.Params), func(p datalog.Param) bool { return p.Name == "prior" }),
				datalog.Param{Name: "prior", Value: p})
		}
		return aggregatorOf(a, group)
	}
	if rs.def, err = variantOf(prog.Aggregation("")); err != nil {
		return nil, nil, err
	}
	for _, q := range qs {
		if _, ok := rs.byRel[q.Rel]; ok {
			continue
		}
		a := prog.Aggregation(rs.names[q.Rel])
		if a.Pred == "" {
			rs.byRel[q.Rel] = rs.def
			continue
		}
		v, err := variantOf(a)
		if err != nil {
			return nil, nil, err
		}
		rs.byRel[q.Rel] = v
	}
	return rs, ents, nil
}

// aggregatorOf turns an @aggregate directive into a ranking variant; group
// returns the rule groups of the grouped method for a threshold.
func aggregatorOf(a datalog.Aggregate, group func(threshold float64) ([]int32, error)) (ruleVariant, error) {
	v := ruleVariant{prior: a.Value("prior") == 1, desc: a}
	switch a.Method {
	case "max":
		v.agg, v.red = linkpred.Max, linkpred.MaxReduction
	case "noisy_or":
		v.agg, v.red = linkpred.NoisyOr(int(a.Value("top"))), linkpred.NoisyOrReduction(int(a.Value("top")))
	case "grouped":
		if group == nil {
			return v, fmt.Errorf("eval: grouped aggregation needs the queries to group rules on")
		}
		g, err := group(a.Value("threshold"))
		if err != nil {
			return v, err
		}
		v.agg = linkpred.GroupedNoisyOr(g)
	default:
		return v, fmt.Errorf("eval: unknown aggregation %q", a.Method)
	}
	return v, nil
}

// entityPos maps a symbol id to its position in an entity list, or -1. A
// slice indexed by the id: the store's ids are dense (the symbols in order
// of interning), and a map of a million entities cost more, looked up
// once per candidate of every query, than applying the rules.
type entityPos []int32

func newEntityPos(ents []store.ID) entityPos {
	n := 0
	for _, id := range ents {
		n = max(n, int(id)+1)
	}
	p := make(entityPos, n)
	for i := range p {
		p[i] = -1
	}
	for i, id := range ents {
		p[id] = int32(i)
	}
	return p
}

// of returns id's position, or -1 when id is not in the list.
func (p entityPos) of(id store.ID) int32 {
	if int(id) >= len(p) {
		return -1
	}
	return p[id]
}

// ruleScorer adapts the reasoner's per-rule scores to linkpred.Scorer (each
// relation ranked by its variant) and linkpred.VariantScorer (every query
// ranked by each of variants).
type ruleScorer struct {
	eng      *reasoner.Engine
	pos      entityPos
	names    map[store.ID]string
	slot     *linkpred.SlotPrior
	def      ruleVariant
	byRel    map[store.ID]ruleVariant
	variants []ruleVariant // for ScoreVariants
	hybrid   bool          // a hybridScorer applies the prior itself
	reached  *reachSet     // if not nil, records the queries whose answer a rule reaches
}

// variant returns the ranking variant of relation rel.
func (r *ruleScorer) variant(rel store.ID) ruleVariant {
	if v, ok := r.byRel[rel]; ok {
		return v
	}
	return r.def
}

func (r *ruleScorer) priorOf(rel store.ID) *linkpred.SlotPrior {
	if r.variant(rel).prior {
		return r.slot
	}
	return nil
}

// hits calls fn with the rules' evidence for each candidate of q. linkpred's
// Inverse is tail prediction (Given, Rel, ?): the given entity is the head's
// first argument, which EachRuleHit calls inverse=false.
func (r *ruleScorer) hits(ctx context.Context, q linkpred.Query, fn func(id store.ID, hits []reasoner.RuleScore)) error {
	return r.eng.EachRuleHit(ctx, r.names[q.Rel], r.names[q.Given], !q.Inverse, fn)
}

func (r *ruleScorer) Score(ctx context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
	return r.score(ctx, qs, [][]linkpred.Scores{out}, func(_ int, q linkpred.Query) ruleVariant { return r.variant(q.Rel) })
}

// ScoreVariants ranks every query under each of r.variants.
func (r *ruleScorer) ScoreVariants(ctx context.Context, qs []linkpred.Query, out [][]linkpred.Scores) error {
	return r.score(ctx, qs, out, func(v int, _ linkpred.Query) ruleVariant { return r.variants[v] })
}

// bestScratch holds the scratch memory of ruleScorer.score's calls, which
// run concurrently.
var bestScratch = sync.Pool{New: func() any { return new(linkpred.BestScratch) }}

func (r *ruleScorer) score(ctx context.Context, qs []linkpred.Query, outs [][]linkpred.Scores, variant func(v int, q linkpred.Query) ruleVariant) error {
	var conf []linkpred.RuleConf
	var best []float32
	bs := bestScratch.Get().(*linkpred.BestScratch)
	defer bestScratch.Put(bs)
	vrs := make([]ruleVariant, len(outs))
	for i, q := range qs {
		reduce := true // every variant is a reduction: the best per rule once
		for v := range outs {
			vrs[v] = variant(v, q)
			reduce = reduce && vrs[v].red != nil
		}
		reached := false
		err := r.hits(ctx, q, func(id store.ID, hits []reasoner.RuleScore) {
			reached = reached || id == q.Answer
			p := r.pos.of(id)
			if p < 0 {
				return
			}
			conf = conf[:0]
			for _, h := range hits {
				conf = append(conf, linkpred.RuleConf{Rule: h.Rule, Conf: float32(h.Score)})
			}
			if reduce {
				best = bs.BestPerRule(best[:0], conf)
			}
			for v, out := range outs {
				if reduce {
					out[i].AddBest(vrs[v].red, p, best)
				} else {
					out[i].AddRules(vrs[v].agg, p, conf)
				}
			}
		})
		if err != nil {
			return err
		}
		if reached && r.reached != nil {
			r.reached.add(q)
		}
		for v, out := range outs {
			if vrs[v].prior && !r.hybrid {
				r.slot.Extend(q, &out[i])
			}
		}
	}
	return nil
}
