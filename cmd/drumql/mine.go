package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/internal/report"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
)

// mineCmd is drumql mine.
type mineCmd struct {
	Out           string   `short:"o" placeholder:"FILE" help:"Write the rules to FILE (default: standard output)."`
	Len           *int     `placeholder:"T" help:"Maximum rule length T, 1 to 16 (default 2)."`
	Rank          *int     `placeholder:"L" help:"Rank L, the number of rule groups learnt per query, at least 1 (default 3)."`
	Epochs        *int     `placeholder:"N" help:"Maximum number of epochs, at least 1 (default 10, with early stopping)."`
	Batch         *int     `placeholder:"B" help:"Training triples per batch, at least 1 (default 64)."`
	Seed          *uint64  `placeholder:"S" help:"Random seed, at least 1 (default 33)."`
	Heads         []string `sep:"," placeholder:"R1,R2" help:"Only learn rules for these head relations."`
	Threads       int      `placeholder:"N" help:"Worker goroutines (default: all cores). The result does not depend on it."`
	MaxFanOut     *int     `placeholder:"N" help:"Hub cap: an entity with more than N neighbours through one relation direction (a gender value, a country) passes no mass through it in training and in the model's scores (default 10000; -1: no cap). Rules and their confidences are counted on the exact graph."`
	MaxQueries    *int     `placeholder:"N" help:"Train each epoch on at most N triples of each relation (a seeded sample, drawn afresh every epoch) and validate on at most N of each (default 2048; -1: no bound). Keeps an epoch's time in proportion to the graph on large graphs; relations with fewer triples are not sampled."`
	MaxRules      int      `default:"200" placeholder:"N" help:"Chain rules kept per head relation, the best by confidence on the graph (default ${default})."`
	Candidates    int      `default:"1000" placeholder:"N" help:"Chain-rule bodies per head relation, the best by DRUM score, whose support is counted on the graph before the --max-rules best by confidence are kept (default ${default})."`
	MinScore      *float64 `placeholder:"X" help:"Drop the chain rules whose raw DRUM score is below X, in (0, L] (a score is at most the rank L): those the beam search proposes and those the path samples propose. Default: the beam search drops bodies below 1e-6, and the bodies the path samples propose are kept whatever their score."`
	Beam          int      `default:"4000" placeholder:"N" help:"Partial rule bodies kept per step of the extraction's beam search (default ${default})."`
	PathSamples   *int     `placeholder:"N" help:"Facts of each head relation whose connecting paths in the graph (up to --len steps) propose chain-rule bodies besides DRUM's, their support counted like the others (default 200; -1: bodies from DRUM's attention only)."`
	NoConstants   bool     `help:"Learn no rules with constants (h(X, c) :- b(X, d). and h(X, c) :- b(X, _).): for the inductive setting, where test entities are new."`
	ConstantLen   int      `placeholder:"N" default:"2" help:"The most atoms in the body of a rule with constants: 1, or 2 for h(X, c) :- b1(X, Y), b2(Y, d). as well."`
	ConstantRules *int     `placeholder:"N" help:"Rules with constants kept per head relation (default 300), chosen as --constants-by says."`
	PerConstant   *int     `placeholder:"N" help:"Rules with constants kept per head relation and constant, the best by confidence: the pool the head's --constant-rules are chosen from (default 1000)."`
	ConstantsBy   string   `enum:"coverage,confidence" default:"coverage" help:"How a head's --constant-rules rules with constants are chosen: coverage (greedily, the rules that most raise the confidence with which its facts are predicted, so they spread over its constants and facts) or confidence (the most confident)."`
	Threshold     float64  `default:"0.1" placeholder:"X" help:"The threshold written into the rule file (@min X, in (0, 1]): infer, query and explain drop derivations of its rules below X (their --min overrides it). A mined file has hundreds of rules per head relation, and chaining their weak derivations through each other would derive nearly every pair (default ${default})."`
	Aggregate     string   `enum:"auto,max,noisy-or" default:"auto" help:"The aggregation recorded in the rule file (@aggregate) for ranking: auto chooses it on the valid split (overall, and per relation with enough queries) among max and noisy-or over the top 3 or 10 rules, each with and without the slot prior; max without a valid split."`
	Budget        *int     `placeholder:"N" help:"Edge visits allowed to count one rule's support exactly (default 100000); past it, the counts of a chain rule's starts done so far (a seeded random sample) are scaled to all of them, and the comment says sample=done/all; a two-step rule with constants is left out."`
	HeadBudget    *int     `placeholder:"N" help:"Edge visits allowed to count the support of all the bodies of one head relation, in the order they are proposed (default 100000000); bodies left when it is spent are left out."`
	MinSupport    *int     `placeholder:"N" help:"Drop rules, chain rules and rules with constants, that predict fewer than N facts of the graph correctly (-1 keeps all). Default: 1 for chain rules, 2 for rules with constants."`
	Weight        string   `default:"confidence" enum:"confidence,score" help:"Rule weights: confidence (support/(body+5) on the graph; DRUM chooses the rules, the graph calibrates them) or score (DRUM's attention score over the head's best, as in the paper)."`
	SaveModel     string   `placeholder:"FILE" help:"Save the trained parameters to FILE (for drumql eval --model)."`
	FromModel     string   `placeholder:"FILE" help:"Do not train: read the rules off a model saved with --save-model (to try other extraction settings)."`
	Report        string   `placeholder:"FILE.html" help:"Write a self-contained HTML report (loss curve, rules, metrics)."`
	Eval          bool     `help:"Evaluate the model on the store's test split after training (filtered MRR, Hits@k)."`
	Force         bool     `help:"Replace the --out file even if drumql mine did not write it or it was edited since (mine checks a checksum in its first line)."`

	// Scale (see snapshot.go).
	Snapshot  string `placeholder:"FILE" help:"Train from a snapshot file written by drumql snapshot instead of the store."`
	MaxMemory string `placeholder:"SIZE" help:"Refuse to train when the estimate of the memory mine needs (training, then the rule step) exceeds SIZE (e.g. 8G; default: the available memory, the smaller of MemAvailable and the cgroup limit; off: never refuse)."`

	// Head-relation groups (see groups.go).
	groupFlags `embed:""`

	fromSet *modelSet `kong:"-"` // the --from-model model(s), read before the graph
}

// Help is shown under the command's usage.
func (mineCmd) Help() string {
	return `Learns weighted rules with DRUM from the binary base facts in the store: the
training queries are the "train" split (all facts when there is none), early
stopping uses the "valid" split. The rules are written as Datalog, grouped by
head relation and sorted by weight, each with a comment giving its raw score
and support. Ctrl-C stops after the current batch and still writes the rules of
the current weights.

Examples:
  drumql mine --out family.dl
  drumql mine --len 3 --heads wife,husband --out spouses.dl --report mine.html
  drumql mine --save-model family.model --out family.dl
  drumql mine --from-model family.model --max-rules 50 --out family50.dl`
}

func (c *mineCmd) Run(e *env) error {
	if err := errors.Join(c.validate(), c.checkOutputs()); err != nil {
		return err
	}
	src, st, from, err := c.mineSource(e) // --snapshot FILE or the store
	if err != nil {
		return err
	}
	if st != nil {
		defer st.Close()
	}
	if c.Eval && st != nil {
		// Say it now, not after an hour of training.
		names, err := st.Splits()
		if err != nil {
			return err
		}
		if !slices.Contains(names, "test") {
			return inputErr(fmt.Errorf("mine --eval: the store has no test split to evaluate on (load a dataset folder with a test.txt, or drop --eval)"))
		}
	}
	start := time.Now()
	if c.FromModel != "" {
		// Read before the graph: the memory estimate needs its T and L.
		if c.fromSet, err = loadModel(c.FromModel); err != nil {
			return err
		}
	}
	g, restoreLimit, err := c.loadGraph(e, src) // memory estimate, check and soft limit (memory.go)
	if err != nil {
		return err
	}
	defer restoreLimit()
	cfg := miner.Config{MaxLen: deref(c.Len), Rank: deref(c.Rank), MaxEpochs: deref(c.Epochs), Batch: deref(c.Batch), Seed: deref(c.Seed),
		Threads: c.Threads, Heads: c.Heads, MaxQueries: deref(c.MaxQueries), MaxFanOut: deref(c.MaxFanOut)}
	if n := deref(c.Epochs); n > 0 && n < 5 {
		cfg.MinEpochs = n
	}
	cfg = cfg.WithDefaults()
	var loss []report.LossPoint
	var validLoss []float64
	pb := e.newBar(-1, "mining")
	prevMean, step := 0.0, 0
	progress := func(p miner.Progress) {
		if testHookMineProgress != nil {
			testHookMineProgress(p)
		}
		if p.EpochDone {
			validLoss = append(validLoss, p.ValidLoss)
			if !e.cli.Quiet && !e.showProgress() {
				// No bar (a log file): one line per epoch.
				line := fmt.Sprintf("mine: epoch %d/%d: %d batches, train loss %.4f", p.Epoch, cfg.MaxEpochs, p.Batches, p.Loss)
				if p.ValidLoss != 0 || p.ValidHits10 != 0 {
					line += fmt.Sprintf(", valid loss %.4f, raw Hits@10 %.3f", p.ValidLoss, p.ValidHits10)
				}
				fmt.Fprintf(e.stderr, "%s (%s)\n", line, p.Elapsed.Round(100*time.Millisecond))
			}
			return
		}
		if step == 0 && !e.cli.Quiet {
			if p.EpochTriples < p.Triples {
				fmt.Fprintf(e.stderr, "mine: an epoch trains on %d of the %d training triples (at most %d per relation, drawn afresh each epoch; --max-queries)\n",
					p.EpochTriples, p.Triples, cfg.MaxQueries)
			}
			if p.CappedEntries > 0 {
				fmt.Fprintf(e.stderr, "mine: %d operator entries out of hubs (more than %d neighbours through one relation direction) carry no mass in propagation (--max-fan-out)\n",
					p.CappedEntries, cfg.MaxFanOut)
			}
		}
		// p.Loss is the mean over the epoch so far; recover the batch's own.
		cur := p.Loss
		if p.Batch > 1 {
			cur = p.Loss*float64(p.Batch) - prevMean*float64(p.Batch-1)
		}
		prevMean = p.Loss
		step++
		loss = append(loss, report.LossPoint{Epoch: p.Epoch, Batch: p.Batch, Step: step, Loss: cur})
		pb.describe(fmt.Sprintf("epoch %d/%d batch %d/%d loss %.4f %.0f q/s", p.Epoch, cfg.MaxEpochs, p.Batch, p.Batches, p.Loss, p.QueriesPerSec))
		pb.set(step)
	}
	var model *miner.Model
	var grp *groupRun // mined in head groups (groups.go)
	var trainErr error
	if set := c.fromSet; set != nil {
		model, cfg = set.models[0], set.models[0].Config()
		if set.heads != nil {
			if grp, err = c.extractGroups(e, g, set); err != nil {
				return err
			}
		}
	} else if c.grouped() {
		grp, trainErr = c.mineGroups(e, src, g, cfg, progress)
	} else {
		model, trainErr = miner.TrainGraph(e.ctx, src, g, cfg, progress)
	}
	pb.finish()
	// Training's propagation blocks are garbage now. Collect them before
	// the rule step allocates: the collector would otherwise let the heap
	// grow to twice training's live heap first, and the rule step's
	// allocations would come on top of the dead blocks.
	runtime.GC()
	interrupted := false
	if trainErr != nil {
		if (model == nil && grp == nil) || e.ctx.Err() == nil {
			if errors.Is(trainErr, miner.ErrUnknownRelation) {
				return inputErr(trainErr)
			}
			return trainErr
		}
		interrupted = true
	}
	extractStart := time.Now()
	// After Ctrl-C the rules of the current weights are still written: read
	// them off without the cancelled context (and choose no aggregation).
	ctx := e.ctx
	if interrupted {
		ctx = context.WithoutCancel(ctx)
	}
	var rules []miner.MinedRule
	models := single(model)
	if grp != nil {
		rules, models = grp.rules, &modelSet{models: grp.models, heads: grp.heads()}
	} else if rules, err = cluster.ExtractGroup(ctx, g, c.settings(cfg), model, c.Heads, c.Threads); err != nil {
		return err
	}
	// Without a terminal, say how long each part of the rule step takes.
	logStep := func(what string, since time.Time) {
		if !e.cli.Quiet && !e.showProgress() {
			fmt.Fprintf(e.stderr, "mine: %s (%s)\n", what, time.Since(since).Round(100*time.Millisecond))
		}
	}
	logStep(fmt.Sprintf("%d rules read and counted", len(rules)), extractStart)
	tuneStart := time.Now()
	var tuned *tuning
	directives := []datalog.Aggregate{{Method: "max"}}
	switch c.Aggregate {
	case "noisy-or":
		directives = []datalog.Aggregate{{Method: "noisy_or"}}
	case "auto":
		if interrupted {
			// After Ctrl-C the file records max.
			break
		}
		vq, err := validQueries(st)
		if err != nil {
			return err
		}
		if len(vq) > 0 && len(rules) > 0 {
			prog := &datalog.Program{Rules: miner.DatalogRules(rules)}
			if tuned, err = tuneAggregation(ctx, e, st, g, prog, vq); err != nil {
				return err
			}
			directives = tuned.Directives
			logStep(fmt.Sprintf("aggregation chosen on %d valid queries", len(vq)), tuneStart)
		}
	}
	extractTook := time.Since(extractStart)
	var hist []miner.EpochStats
	var header string
	if grp != nil {
		hist = grp.history()
		header = fmt.Sprintf("%s: %d rules for %d head relations from %s\n%s", minedHeader, len(rules), countHeads(rules), from, grp.header(cfg))
	} else {
		hist = model.History()
		header = fmt.Sprintf("%s: %d rules for %d head relations from %s\n%% T=%d L=%d batch=%d seed=%d epochs=%d",
			minedHeader, len(rules), countHeads(rules), from, cfg.MaxLen, cfg.Rank, cfg.Batch, cfg.Seed, len(hist))
	}
	if interrupted {
		header += "\n% interrupted: these are the rules of the weights when training was stopped"
	}
	if tuned != nil {
		header += "\n% " + describeTuning(tuned)
	}
	var buf bytes.Buffer
	writeRules(&buf, header, c.Threshold, directives, rules)
	mined := stampMined(buf.Bytes())
	if c.Out == "" {
		if _, err := e.stdout.Write(mined); err != nil {
			return err
		}
	} else if err := writeMined(c.Out, mined, c.Force); err != nil {
		return err
	}
	if c.SaveModel != "" && grp != nil {
		if err := grp.save(c.SaveModel); err != nil {
			return err
		}
	} else if c.SaveModel != "" {
		var mb bytes.Buffer
		if err := model.Save(&mb); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(c.SaveModel, mb.Bytes()); err != nil {
			return err
		}
	}
	// Coverage, printed at the end and shown in the report.
	var cov *coverageInfo
	if st != nil && !interrupted && (!e.cli.Quiet || c.Report != "") {
		// The rule application's candidate lists and engine are garbage
		// now: collect them before the model's blocks are allocated.
		runtime.GC()
		if cov, err = coverage(e, st, g, models, rules, tuned); err != nil {
			return err
		}
	}
	var metrics *linkpred.Report
	if c.Eval && !interrupted {
		metrics, err = evalModel(e, st, g, models, "test")
		if err != nil {
			return err
		}
		printMetrics(e.stderr, metrics)
	}
	if c.Report != "" {
		rep := buildReport(e, cfg, g, rules, hist, loss, validLoss, metrics, cov, time.Since(start), interrupted)
		var hb bytes.Buffer
		if err := report.Write(&hb, rep); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(c.Report, hb.Bytes()); err != nil {
			return err
		}
	}
	where := "standard output"
	if c.Out != "" {
		where = c.Out
	}
	if interrupted {
		fmt.Fprintf(e.stderr, "drumql: interrupted after %d epochs; wrote the %d rules of the current weights to %s\n", len(hist), len(rules), where)
		return fmt.Errorf("mine: %w", trainErr)
	}
	if !e.cli.Quiet {
		fmt.Fprintf(e.stderr, "mined %d rules for %d head relations in %d epochs (%s; rules read, counted and tuned in %s); wrote %s\n",
			len(rules), countHeads(rules), len(hist), time.Since(start).Round(100*time.Millisecond),
			extractTook.Round(100*time.Millisecond), where)
		if cov != nil {
			fmt.Fprint(e.stderr, cov)
		}
	}
	return nil
}

// testHookMineProgress, when set by a test, sees every progress report of
// drumql mine (to interrupt training at a known point).
var testHookMineProgress func(miner.Progress)

// countHeads counts the distinct head predicates of rules.
func countHeads(rules []miner.MinedRule) int {
	n := 0
	for i := range rules {
		if i == 0 || rules[i].Head != rules[i-1].Head {
			n++
		}
	}
	return n
}

// writeRules writes the header comment, the @aggregate directives, the
// @min directive (the threshold min, with a comment on what it is for) and
// the rules, each with its comment (score, ranks, support), a blank line
// between head relations.
func writeRules(b *bytes.Buffer, header string, min float64, directives []datalog.Aggregate, rules []miner.MinedRule) {
	b.WriteString(header + "\n")
	if len(directives) > 0 {
		b.WriteByte('\n')
	}
	for _, d := range directives {
		b.WriteString(d.String() + "\n")
	}
	b.WriteString("\n% infer, query and explain drop derivations of these rules below @min (their --min overrides it):\n")
	b.WriteString("% hundreds of weak rules per head, chained through each other, would derive nearly every pair.\n")
	b.WriteString(datalog.Threshold{Min: min}.String() + "\n")
	for i, r := range rules {
		if i == 0 || r.Head != rules[i-1].Head {
			fmt.Fprintf(b, "\n%% ---- %s ----\n", r.Head)
		}
		b.WriteString(r.Datalog().String())
		b.WriteByte('\n')
	}
}

// buildReport assembles the HTML report of a mining run.
func buildReport(e *env, cfg miner.Config, g *miner.Graph, rules []miner.MinedRule, hist []miner.EpochStats,
	loss []report.LossPoint, validLoss []float64, m *linkpred.Report, cov *coverageInfo, took time.Duration, interrupted bool) *report.Report {
	rep := &report.Report{
		Generated: time.Now().UTC().Format(time.RFC3339),
		Store:     e.cli.DB,
		Dataset:   e.cli.DB,
		Config: []report.KV{
			{Name: "max rule length T", Value: fmt.Sprint(cfg.MaxLen)},
			{Name: "rank L", Value: fmt.Sprint(cfg.Rank)},
			{Name: "hidden", Value: fmt.Sprint(cfg.Hidden)},
			{Name: "embedding", Value: fmt.Sprint(cfg.Embed)},
			{Name: "batch", Value: fmt.Sprint(cfg.Batch)},
			{Name: "learning rate", Value: fmt.Sprint(cfg.LR)},
			{Name: "max epochs", Value: fmt.Sprint(cfg.MaxEpochs)},
			{Name: "seed", Value: fmt.Sprint(cfg.Seed)},
		},
		Summary: []report.KV{
			{Name: "entities", Value: fmt.Sprint(g.NumEntities())},
			{Name: "relations", Value: fmt.Sprint(len(g.Relations()))},
			{Name: "epochs run", Value: fmt.Sprint(len(hist))},
			{Name: "rules", Value: fmt.Sprint(len(rules))},
			{Name: "wall time", Value: took.Round(100 * time.Millisecond).String()},
		},
		Loss:      loss,
		ValidLoss: validLoss,
	}
	if cov != nil {
		rep.Summary = append(rep.Summary, report.KV{Name: "heads with rules", Value: fmt.Sprintf("%d of %d", cov.Covered, cov.Heads)})
		if cov.Queries > 0 {
			rep.Summary = append(rep.Summary,
				report.KV{Name: "valid queries reached by rules", Value: fmt.Sprintf("%.1f%% of %d", 100*cov.Reached, cov.Queries)},
				report.KV{Name: "reached: rules / model", Value: fmt.Sprintf("%.1f%% / %.1f%% of %d", 100*cov.RulesSampled, 100*cov.ModelSampled, cov.Sampled)})
		}
	}
	if interrupted {
		rep.Notes = append(rep.Notes, "Training was interrupted (Ctrl-C): the rules are those of the weights at that moment.")
	}
	for i, r := range rules {
		if i == 0 || r.Head != rules[i-1].Head {
			rep.Heads = append(rep.Heads, report.HeadRules{Head: datalog.QuoteName(r.Head)})
		}
		h := &rep.Heads[len(rep.Heads)-1]
		body := r.Rule
		body.Comment = ""
		body.Weight = 1
		support := -1 // not counted
		if r.Counted {
			support = r.Support
		}
		h.Rules = append(h.Rules, report.RuleRow{Text: body.String(), Weight: r.Rule.Weight, Score: r.Score, Support: support})
	}
	if m != nil {
		rep.Metrics = &report.Metrics{Split: "test", Queries: m.Queries, HeadQueries: m.HeadQueries, TailQueries: m.TailQueries,
			Optimistic: policyMetrics(&m.Optimistic), Pessimistic: policyMetrics(&m.Pessimistic), Expected: policyMetrics(&m.Expected)}
	}
	return rep
}

func policyMetrics(m *linkpred.Metrics) report.PolicyMetrics {
	conv := func(s linkpred.Summary) report.Scores {
		return report.Scores{MRR: s.MRR, MR: s.MR, Hits1: s.Hits1, Hits3: s.Hits3, Hits10: s.Hits10}
	}
	return report.PolicyMetrics{All: conv(m.Summary), Head: conv(m.Head), Tail: conv(m.Tail)}
}
