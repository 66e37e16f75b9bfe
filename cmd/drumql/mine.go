package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/alecthomas/kong"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/mining"
	"github.com/drumql/drumql/rulefile"
	"github.com/drumql/drumql/store"
)

// mineCmd is drumql mine.
type mineCmd struct {
	Out           string         `short:"o" placeholder:"FILE" help:"Write the rules to FILE (default: standard output)."`
	Len           *int           `placeholder:"T" help:"Maximum rule length T, 1 to ${miner_max_len} (default ${miner_len})."`
	Rank          *int           `group:"training" placeholder:"L" help:"Rank L, the number of rule groups learnt per query, at least 1 (default ${miner_rank})."`
	Epochs        *int           `placeholder:"N" help:"Maximum number of epochs, at least 1 (default ${miner_epochs}, with early stopping)."`
	Time          time.Duration  `placeholder:"D" help:"Cap local training (not --cluster) at D since mine started (e.g. 10m; 0: none): when it passes, the rules are read off the weights then, and the file's header says the cap cut training. What follows training is not capped."`
	Batch         *int           `group:"training" placeholder:"B" help:"Training triples per batch, at least 1 (default ${miner_batch})."`
	Seed          *uint64        `group:"training" placeholder:"S" help:"Random seed, at least 1 (default ${miner_seed})."`
	Heads         []string       `sep:"," placeholder:"R1,R2" help:"Only learn rules for these head relations."`
	Threads       int            `group:"training" placeholder:"N" help:"Worker goroutines (default: all cores). The result does not depend on it."`
	MaxFanOut     *int           `group:"training" placeholder:"N" help:"Hub cap: an entity with more than N neighbours through one relation direction (a gender value, a country) passes no mass through it in training and in the model's scores (default ${miner_max_fan_out}; -1: no cap). Rules and their confidences are counted on the exact graph."`
	MaxQueries    *int           `group:"training" placeholder:"N" help:"Train each epoch on at most N triples of each relation (a seeded sample, drawn afresh every epoch) and validate on at most N of each (default ${miner_max_queries}; -1: no bound). Keeps an epoch's time in proportion to the graph on large graphs; relations with fewer triples are not sampled."`
	MaxRules      *int           `group:"extraction" placeholder:"N" help:"Chain rules kept per head relation, the best by confidence on the graph (default ${miner_max_rules})."`
	Candidates    *int           `group:"extraction" placeholder:"N" help:"Chain-rule bodies per head relation, the best by DRUM score, whose support is counted on the graph before the --max-rules best by confidence are kept (default ${miner_candidates})."`
	MinScore      *float64       `group:"extraction" placeholder:"X" help:"Drop the chain rules whose raw DRUM score is below X, in (0, L] (a score is at most the rank L): those the beam search proposes and those the path samples propose. Default: the beam search drops bodies below ${miner_min_score}, and the bodies the path samples propose are kept whatever their score."`
	Beam          *int           `group:"extraction" placeholder:"N" help:"Partial rule bodies kept per step of the extraction's beam search (default ${miner_beam})."`
	PathSamples   *int           `group:"extraction" placeholder:"N" help:"Facts of each head relation whose connecting paths in the graph (up to --len steps) propose chain-rule bodies besides DRUM's, their support counted like the others (default ${miner_path_samples}; -1: bodies from DRUM's attention only)."`
	PathLen       *int           `group:"extraction" placeholder:"N" help:"The longest body, 1 to ${miner_max_path_len}, the path samples propose (default: --len, at most ${miner_max_path_len})."`
	Widen         string         `group:"extraction" enum:"auto,off" default:"auto" help:"auto: also read a wide rule set off the model (paths of length ${miner_max_path_len}, up to ${miner_wide_constant_rules} rules with constants per head relation) and keep, for each head relation, the set that ranks the valid split better (per relation with enough valid queries, the better set overall for the others); off: one rule set, as the flags say. Only with --aggregate auto and a valid split."`
	NoConstants   bool           `group:"constants" help:"Learn no rules with constants (h(X, c) :- b(X, d). and h(X, c) :- b(X, _).): for the inductive setting, where test entities are new."`
	ConstantLen   *int           `group:"constants" placeholder:"N" help:"The most atoms in the body of a rule with constants: 1, or 2 for h(X, c) :- b1(X, Y), b2(Y, d). as well (default ${miner_const_len})."`
	ConstantRules *int           `group:"constants" placeholder:"N" help:"Rules with constants kept per head relation (default ${miner_constant_rules}), chosen as --constants-by says."`
	PerConstant   *int           `group:"constants" placeholder:"N" help:"Rules with constants kept per head relation and constant, the best by confidence: the pool the head's --constant-rules are chosen from (default ${miner_per_constant})."`
	ConstantsBy   string         `group:"constants" enum:"coverage,confidence" default:"coverage" help:"How a head's --constant-rules rules with constants are chosen: coverage (greedily, the rules that most raise the confidence with which its facts are predicted, so they spread over its constants and facts) or confidence (the most confident)."`
	Config        mineConfigFile `placeholder:"FILE" help:"Read flag values from FILE, a JSON object keyed by mine's flag names (as --write-config writes it); flags on the command line override it, and a key that is not a flag of mine is an error."`
	WriteConfig   string         `placeholder:"FILE" help:"Write the run's configuration, every flag's value (the miner's defaults included), to FILE as JSON before mining: --config FILE runs the same mining again."`
	Threshold     float64        `default:"0.1" placeholder:"X" help:"The threshold written into the rule file (@min X, in (0, 1]): infer, query and explain drop derivations of its rules below X (their --min overrides it). A mined file has hundreds of rules per head relation, and chaining their weak derivations through each other would derive nearly every pair (default ${default})."`
	Aggregate     string         `group:"aggregation" enum:"auto,max,noisy-or" default:"auto" help:"The aggregation recorded in the rule file (@aggregate) for ranking: auto chooses it on the valid split (overall, and per relation with enough queries) among max, noisy-or over the top 3 or 10 rules and grouped at thresholds 0, 0.2, 0.4, 0.6, 0.8 and 1 (SAFRAN's combination), each with and without the slot prior; max without a valid split."`
	Budget        *int           `group:"extraction" placeholder:"N" help:"Edge visits allowed to count one rule's support exactly (default ${miner_budget}); past it, the counts of a chain rule's starts done so far (a seeded random sample) are scaled to all of them, and the comment says sample=done/all; a two-step rule with constants is left out."`
	HeadBudget    *int           `group:"extraction" placeholder:"N" help:"Edge visits allowed to count the support of all the bodies of one head relation, in the order they are proposed (default ${miner_head_budget}); bodies left when it is spent are left out."`
	MinSupport    *int           `group:"extraction" placeholder:"N" help:"Drop rules, chain rules and rules with constants, that predict fewer than N facts of the graph correctly (-1 keeps all). Default: ${miner_min_support} for chain rules, ${miner_const_min_support} for rules with constants."`
	Weight        string         `group:"extraction" default:"confidence" enum:"confidence,score" help:"Rule weights: confidence (support/(body+${miner_smoothing}) on the graph; DRUM chooses the rules, the graph calibrates them) or score (DRUM's attention score over the head's best, as in the paper)."`
	SaveModel     string         `group:"output" placeholder:"FILE" help:"Save the trained parameters to FILE (for drumql eval --model)."`
	FromModel     string         `group:"training" placeholder:"FILE" help:"Do not train: read the rules off a model saved with --save-model (to try other extraction settings)."`
	Report        string         `group:"output" placeholder:"FILE.html" help:"Write a self-contained HTML report (loss curve, rules, metrics)."`
	Top           int            `group:"output" placeholder:"N" help:"Write only the best N rules per head relation, for a person to read: those with the highest support × confidence on the graph (the rules that predict the most facts, most precisely), those that together cover the most of its training facts, or those that together rank their answers best, whichever ranks its valid queries best. With a valid split, mine says what that costs: the valid MRR of the best N against the whole file's (the aggregation is chosen for the N kept)."`
	Eval          bool           `group:"output" help:"Evaluate the model on the store's test split after training (filtered MRR, Hits@k)."`
	Force         bool           `group:"output" help:"Replace the --out file even if drumql mine did not write it or it was edited since (mine checks a checksum in its first line)."`

	// Scale (see snapshot.go).
	Snapshot  string `group:"memory" placeholder:"FILE" help:"Train from a snapshot file written by drumql snapshot instead of the store."`
	MaxMemory string `group:"memory" placeholder:"SIZE" help:"Refuse to train when the estimate of the memory mine needs (training, then the rule step) exceeds SIZE (e.g. 8G; default: the available memory, the smaller of MemAvailable and the cgroup limit; off: never refuse)."`

	// Head-relation groups (see groups.go).
	groupFlags `embed:"" group:"cluster"`

	flags   []*kong.Flag     `kong:"-"` // mine's flags, for --write-config
	fromSet *mining.ModelSet `kong:"-"` // the --from-model model(s), read before the graph
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
  drumql mine --from-model family.model --max-rules 50 --out family50.dl
  drumql mine --epochs 5 --out family.dl --write-config family.json
  drumql mine --config family.json --len 3 --out family3.dl`
}

func (c *mineCmd) Run(e *env) error {
	if err := errors.Join(c.validate(), c.checkOutputs()); err != nil {
		return err
	}
	if err := c.writeConfig(); err != nil {
		return err
	}
	src, st, from, err := c.mineSource(e) // --snapshot FILE or the store
	if err != nil {
		return err
	}
	if st != nil {
		defer st.Close()
	}
	if err := c.checkEvalSplit(st); err != nil {
		return err
	}
	r := &mining.Run{Start: time.Now(), From: from, Store: st}
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
	r.Graph = g
	if err := c.mine(e, src, r); err != nil {
		return err
	}
	if err := c.chooseAggregation(e, r); err != nil {
		return err
	}
	if err := c.keepTop(e, r); err != nil {
		return err
	}
	r.RuleStepTook = time.Since(r.RulesStart)
	if err := c.writeOutputs(e, r); err != nil {
		return err
	}
	if err := c.assess(e, r); err != nil {
		return err
	}
	if err := c.writeReport(e, r); err != nil {
		return err
	}
	return c.summarise(e, r)
}

// checkEvalSplit refuses --eval at once, not after an hour of training,
// when the store has no test split.
func (c *mineCmd) checkEvalSplit(st store.Store) error {
	if !c.Eval || st == nil {
		return nil
	}
	if ok, err := store.HasSplit(st, "test"); err != nil || ok {
		return err
	}
	return inputErr(fmt.Errorf("mine --eval: the store has no test split to evaluate on (load a dataset folder with a test.txt, or drop --eval)"))
}

// mine trains the model (or the group models, here or on the --cluster
// workers) and reads the rules off it, or reads them off the --from-model
// models. After Ctrl-C in this process, the rules of the current weights
// are kept and r.Stopped is set.
func (c *mineCmd) mine(e *env, src miner.GraphSource, r *mining.Run) error {
	opt := c.options()
	r.Config = opt.Config
	if set := c.fromSet; set != nil {
		r.Config = set.Models[0].Config()
		r.RulesStart = time.Now()
		var err error
		r.Result, err = mining.ReadRules(e.ctx, r.Graph, set, c.Heads, opt)
		if err != nil && set.Heads != nil {
			return fmt.Errorf("mine: --from-model: %w", err)
		}
		return err
	}
	progress, pb := c.progress(e, r)
	var err error
	if c.Cluster != "" {
		r.Result, r.Files, err = c.mineCluster(e, src, r.Graph, opt)
	} else {
		if c.HeadGroups > 1 {
			opt.HeadGroups = c.HeadGroups
		}
		opt.RulesWhenStopped = true
		tctx, cancel := r.TrainingContext(e.ctx, c.Time)
		defer cancel()
		r.Result, err = miner.Mine(tctx, src, r.Graph, opt, progress)
		err = r.Trained(tctx, err)
	}
	pb.finish()
	err = r.Trained(e.ctx, err)
	if errors.Is(err, miner.ErrUnknownRelation) {
		return inputErr(fmt.Errorf("mine: --heads: %w", err))
	}
	return err
}

// progress returns the training progress callback of a run: the bar (or,
// without a terminal, a line per epoch), the plan's notes, and the loss
// curve of the report.
func (c *mineCmd) progress(e *env, r *mining.Run) (func(miner.Progress), *bar) {
	cfg := r.Config
	pb := e.newBar(-1, "mining")
	return func(p miner.Progress) {
		if testHookMineProgress != nil {
			testHookMineProgress(p)
		}
		first := len(r.Loss) == 0
		r.Observe(p)
		switch {
		case p.Trained:
			if p.Group == p.Groups {
				pb.finish()
			}
			return
		case p.EpochDone:
			if !e.cli.Quiet && !e.showProgress() { // no bar (a log file): one line per epoch
				fmt.Fprintln(e.stderr, mining.EpochLine(p, cfg))
			}
			return
		}
		if !e.cli.Quiet && p.Groups > 1 && p.Epoch == 1 && p.Batch == 1 {
			fmt.Fprintf(e.stderr, "mine: head group %d of %d\n", p.Group, p.Groups)
		}
		if first && !e.cli.Quiet {
			for _, note := range mining.PlanNotes(p, cfg) {
				fmt.Fprintln(e.stderr, note)
			}
		}
		pb.describe(mining.BatchText(p, cfg))
		pb.set(len(r.Loss))
	}, pb
}

// logStep says, without a terminal, how long a part of the rule step took.
func (c *mineCmd) logStep(e *env, what string, since time.Time) {
	if !e.cli.Quiet && !e.showProgress() {
		fmt.Fprintf(e.stderr, "mine: %s (%s)\n", what, time.Since(since).Round(100*time.Millisecond))
	}
}

// chooseAggregation keeps, per head relation, the run's rules or the wide
// set's (--widen; mining.Run.Widen), then chooses the aggregation recorded
// in the rule file (--aggregate; see mining.Run.ChooseAggregation).
func (c *mineCmd) chooseAggregation(e *env, r *mining.Run) error {
	c.logStep(e, fmt.Sprintf("%d rules read and counted", len(r.Result.Rules)), r.RulesStart)
	if start := time.Now(); c.Widen == "auto" && c.Aggregate == "auto" {
		if w, err := r.Widen(e.ctx, c.options(), c.Heads); err != nil {
			return err
		} else if w != nil {
			c.logStep(e, w.Summary(), start)
		}
	}
	tuneStart := time.Now()
	n, err := r.ChooseAggregation(e.ctx, c.Aggregate)
	if n > 0 {
		c.logStep(e, fmt.Sprintf("aggregation chosen on %d valid queries", n), tuneStart)
	}
	return err
}

// keepTop keeps the best --top rules per head (mining.Run.KeepTop) and
// says what they cost against the whole file.
func (c *mineCmd) keepTop(e *env, r *mining.Run) error {
	if err := r.KeepTop(e.ctx, c.Top); err != nil {
		return err
	}
	if r.FullTuned != nil && !e.cli.Quiet {
		fmt.Fprintf(e.stderr, "mine: %s\n", r.TopLine())
	}
	return nil
}

// writeOutputs writes the rule file (--out or standard output) and the
// model (--save-model).
func (c *mineCmd) writeOutputs(e *env, r *mining.Run) error {
	mined := r.RuleFile(c.Threshold)
	if c.Out == "" {
		if _, err := e.stdout.Write(mined); err != nil {
			return err
		}
	} else if err := rulefile.WriteMined(c.Out, mined, c.Force); err != nil {
		return replaceErr(err)
	}
	if c.SaveModel == "" {
		return nil
	}
	err := r.SaveModel(c.SaveModel)
	if ge, ok := errors.AsType[*mining.GroupFileError](err); ok {
		return fmt.Errorf("mine: --save-model: %w", ge.Err)
	}
	return err
}

// assess computes the coverage, printed at the end and shown in the report,
// and with --eval the model's metrics on the test split.
func (c *mineCmd) assess(e *env, r *mining.Run) error {
	if r.Stopped != nil {
		return nil
	}
	var err error
	if r.Store != nil && (!e.cli.Quiet || c.Report != "") {
		if err := r.MeasureCoverage(e.ctx); err != nil {
			return err
		}
	}
	if c.Eval {
		if r.Metrics, err = evalModel(e, r.Store, r.Graph, r.ModelSet(), "test"); err != nil {
			return err
		}
		r.Metrics.WriteTable(e.stderr)
	}
	return nil
}

// writeReport writes the HTML report of --report.
func (c *mineCmd) writeReport(e *env, r *mining.Run) error {
	if c.Report == "" {
		return nil
	}
	return r.WriteReport(e.ctx, c.Report, e.cli.DB, time.Since(r.Start))
}

// summarise says what was done; after Ctrl-C it returns the error that
// stopped training.
func (c *mineCmd) summarise(e *env, r *mining.Run) error {
	rules, epochs := r.Result.Rules, len(r.History())
	where := "standard output"
	if c.Out != "" {
		where = c.Out
	}
	if r.Stopped != nil {
		fmt.Fprintf(e.stderr, "drumql: interrupted after %d epochs; wrote the %d rules of the current weights to %s\n", epochs, len(rules), where)
		return fmt.Errorf("mine: %w", r.Stopped)
	}
	if !e.cli.Quiet {
		fmt.Fprintf(e.stderr, "mined %d rules for %d head relations in %d epochs (%s; rules read, counted and tuned in %s); wrote %s\n",
			len(rules), mining.CountHeads(rules), epochs, time.Since(r.Start).Round(100*time.Millisecond),
			r.RuleStepTook.Round(100*time.Millisecond), where)
		if r.Coverage != nil {
			fmt.Fprint(e.stderr, r.Coverage)
		}
	}
	return nil
}

// testHookMineProgress, when set by a test, sees every progress report of
// drumql mine (to interrupt training at a known point).
var testHookMineProgress func(miner.Progress)
