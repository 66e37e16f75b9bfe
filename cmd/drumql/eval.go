package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/reasoner"
	"github.com/drumql/drumql/store"
)

// evalCmd is drumql eval.
type evalCmd struct {
	Data    string   `placeholder:"DIR" help:"DRUM dataset folder to evaluate on (loaded in memory; default: the store at --db)." type:"path"`
	Model   string   `placeholder:"FILE" help:"A model saved by drumql mine --save-model. With --rules too: the rules rank the candidates and the model breaks their ties." type:"path"`
	Rules   []string `placeholder:"FILE.dl" help:"Rule files applied by the reasoner, query by query."`
	Split   string   `enum:"test,valid" default:"test" help:"Split to evaluate: test or valid."`
	Combine string   `enum:"max,noisy-or,grouped" default:"max" help:"How the rules' confidences for a candidate combine: max (ties broken by the next-best rules), noisy-or (over each candidate's top 5 rules) or grouped (noisy-or across groups of redundant rules, max inside a group)."`
	Format  string   `enum:"table,json" default:"table" help:"Output format: table or json."`
	Limit   int      `placeholder:"N" help:"Evaluate only the first N triples of the split (for a quick look)."`
	Prior   bool     `help:"With --rules: rank the candidates no rule reaches by how many facts of the query's relation they fill the asked slot of in the graph (the rule r(X, c) weighted by c's share of r), instead of leaving them tied (with --model too: after the model's score)."`
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
	if c.Prior && len(c.Rules) == 0 {
		return inputErr(fmt.Errorf("eval: --prior breaks the ties of --rules"))
	}
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
		rep, err = evalModelLimit(e, st, g, model, c.Rules, c.Combine, c.Prior, c.Split, c.Limit)
		if err != nil {
			return err
		}
	} else {
		rep, err = evalRules(e, st, c.Rules, c.Split, c.Combine, c.Limit, c.Prior)
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

// evalModel evaluates a DRUM model on a split of st.
func evalModel(e *env, st store.Store, g *miner.Graph, model *miner.Model, split string) (*linkpred.Report, error) {
	return evalModelLimit(e, st, g, model, nil, "", false, split, 0)
}

// evalModelLimit evaluates a DRUM model on a split of st (the first limit
// triples when limit > 0); with rule files, the rules rank the candidates
// and the model breaks their ties (see hybridScorer).
func evalModelLimit(e *env, st store.Store, g *miner.Graph, model *miner.Model, ruleFiles []string, combine string, prior bool, split string, limit int) (*linkpred.Report, error) {
	qs, err := splitQueries(st, split, limit)
	if err != nil {
		return nil, err
	}
	filter, err := linkpred.NewFilter(st)
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
	scorer := &modelScorer{model: model, g: g, gpos: gpos, n: len(ents), pool: make(chan *miner.Scorer, 8), rels: relNames(g)}
	if len(ruleFiles) > 0 {
		rules, rents, err := newRuleScorer(e, st, ruleFiles, combine, prior, qs, filter)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(rents, ents) {
			return nil, fmt.Errorf("eval: the rules and the model rank different entity lists (%d and %d entities)", len(rents), len(ents))
		}
		// The hybrid applies the prior itself, after the model's score.
		h := &hybridScorer{rules: rules, model: scorer, n: len(ents), prior: rules.prior}
		rules.prior = nil
		return linkpred.Evaluate(e.ctx, qs, h, filter, linkpred.Options{Entities: ents})
	}
	return linkpred.Evaluate(e.ctx, qs, scorer, filter, linkpred.Options{Entities: ents})
}

// hybridScorer ranks the candidates by the rules (their aggregated
// confidence) and breaks the rules' ties, among them those of the many
// candidates no rule reaches, by the model's score.
type hybridScorer struct {
	rules linkpred.Scorer // sparse scores
	model linkpred.Scorer // dense scores over n entities
	n     int
	prior *linkpred.SlotPrior // nil, or the last tie-breaker
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
	w := 1
	if h.prior != nil {
		w = 2
	}
	for i, q := range qs {
		// The key is (rule score, model score[, prior count]).
		dense := ms[i].Dense
		keys := make([]float32, w*len(dense))
		for p, m := range dense {
			keys[w*p] = m
		}
		var pents []int32
		if h.prior != nil {
			var counts []float32
			pents, counts = h.prior.Slot(q.Rel, q.Inverse)
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
	model *miner.Model
	g     *miner.Graph
	gpos  []int32
	n     int
	pool  chan *miner.Scorer
	rels  map[store.ID]string
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
	name, ok := m.rels[qs[0].Rel]
	if !ok {
		return fmt.Errorf("eval: relation %d is not in the graph", qs[0].Rel)
	}
	given := make([]int32, 0, len(qs))
	idx := make([]int, 0, len(qs))
	for i, q := range qs {
		out[i].SetDense(m.n) // zero scores for a given entity outside the graph
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

// evalRules evaluates rule files applied by the reasoner: every query is
// answered goal-directed from its given entity, and each candidate is scored
// by the aggregator over the confidences each rule gives it.
func evalRules(e *env, st store.Store, files []string, split, combine string, limit int, prior bool) (*linkpred.Report, error) {
	qs, err := splitQueries(st, split, limit)
	if err != nil {
		return nil, err
	}
	filter, err := linkpred.NewFilter(st)
	if err != nil {
		return nil, err
	}
	rs, ents, err := newRuleScorer(e, st, files, combine, prior, qs, filter)
	if err != nil {
		return nil, err
	}
	return linkpred.Evaluate(e.ctx, qs, rs, filter, linkpred.Options{Entities: ents})
}

// newRuleScorer prepares the rule files for the queries qs and returns the
// scorer with its entity list. The grouped aggregator groups the rules by
// their predictions on qs (never by the answers).
func newRuleScorer(e *env, st store.Store, files []string, combine string, prior bool, qs []linkpred.Query, filter *linkpred.Filter) (*ruleScorer, []store.ID, error) {
	var warn bytes.Buffer
	ps, err := loadPrograms(&warn, files)
	io.Copy(e.stderr, &warn)
	if err != nil {
		return nil, nil, err
	}
	snap, err := st.Snapshot(e.ctx)
	if err != nil {
		return nil, nil, err
	}
	ents := linkpred.UnionEntities(snap.Entities, filter.Entities())
	rs := &ruleScorer{eng: nil, pos: make(map[store.ID]int32, len(ents)), names: map[store.ID]string{}}
	for i, id := range ents {
		rs.pos[id] = int32(i)
	}
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
	if prior {
		rs.prior = linkpred.NewSlotPrior(snap, ents)
	}
	rs.eng, err = reasoner.Prepare(e.ctx, st, ps.Prog, reasoner.Options{BaseOnly: true})
	if err != nil {
		return nil, nil, err
	}
	switch combine {
	case "max":
		rs.agg = linkpred.Max
	case "noisy-or":
		rs.agg = linkpred.NoisyOr(5)
	case "grouped":
		// Group rules whose predictions on these queries overlap (Jaccard
		// ≥ 0.5); predictions, not answers, so no label is used.
		preds := make([][]uint64, len(ps.Prog.Rules))
		for qi, q := range qs {
			hits, err := rs.hits(e.ctx, q)
			if err != nil {
				return nil, nil, err
			}
			for _, h := range hits {
				for _, r := range h.Rules {
					preds[r] = append(preds[r], linkpred.PairKey(uint32(qi), h.ID))
				}
			}
		}
		rs.agg = linkpred.GroupedNoisyOr(linkpred.GroupRules(preds, 0.5))
	}
	return rs, ents, nil
}

// ruleScorer adapts the reasoner's per-rule scores to linkpred.Scorer.
type ruleScorer struct {
	eng   *reasoner.Engine
	pos   map[store.ID]int32
	names map[store.ID]string
	agg   linkpred.Aggregator
	prior *linkpred.SlotPrior // nil: candidates no rule reaches stay tied at 0
}

// hits returns the rules' evidence for the candidates of q. linkpred's
// Inverse is tail prediction (Given, Rel, ?): the given entity is the head's
// first argument, which RuleScores calls inverse=false.
func (r *ruleScorer) hits(ctx context.Context, q linkpred.Query) ([]reasoner.RuleHit, error) {
	return r.eng.RuleScores(ctx, r.names[q.Rel], r.names[q.Given], !q.Inverse)
}

func (r *ruleScorer) Score(ctx context.Context, qs []linkpred.Query, out []linkpred.Scores) error {
	var conf []linkpred.RuleConf
	var hit []bool // by candidate position: reached by a rule
	if r.prior != nil {
		hit = make([]bool, len(r.pos))
	}
	for i, q := range qs {
		hits, err := r.hits(ctx, q)
		if err != nil {
			return err
		}
		for _, h := range hits {
			p, ok := r.pos[h.ID]
			if !ok {
				continue
			}
			conf = conf[:0]
			for k, s := range h.Scores {
				conf = append(conf, linkpred.RuleConf{Rule: int32(h.Rules[k]), Conf: float32(s)})
			}
			out[i].AddRules(r.agg, p, conf)
		}
		if r.prior != nil {
			r.prior.Extend(q, &out[i], hit)
		}
	}
	return nil
}

// loadModel reads a model saved by drumql mine --save-model.
func loadModel(path string) (*miner.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, inputErr(err)
	}
	defer f.Close()
	model, err := miner.Load(f)
	if err != nil {
		return nil, inputErr(fmt.Errorf("%s: %w", path, err))
	}
	return model, nil
}
