package mining

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/drumql/drumql/datalog"
	"github.com/drumql/drumql/internal/report"
	"github.com/drumql/drumql/linkpred"
	"github.com/drumql/drumql/miner"
	"github.com/drumql/drumql/rulefile"
	"github.com/drumql/drumql/scoring"
	"github.com/drumql/drumql/store"
)

// Run is the state of a mining run, passed from step to step: what was
// mined, its result, and what the steps after mining found.
type Run struct {
	Start time.Time
	From  string // what is mined, for the header: the store or the snapshot file
	Store store.Store
	Graph *miner.Graph
	// Config is the training configuration, defaults applied (with models
	// read instead of trained, the first model's).
	Config miner.Config
	Result *miner.Result
	// Files are the bytes of each group model as the workers sent them
	// (a cluster run), or nil to save Result.Models.
	Files [][]byte
	// Stopped is the error of an interrupted training: the rules are
	// those of the weights at that moment.
	Stopped error
	// TimeCap is mine --time, the cap on training (0: none), and Cut
	// whether it cut training (TrainingContext).
	TimeCap   time.Duration
	Cut       bool
	Loss      []report.LossPoint
	ValidLoss []float64
	prevMean  float64 // the running mean loss of the last batch observed
	// RulesStart is when the rule step began (the last training ended).
	RulesStart   time.Time
	RuleStepTook time.Duration
	// Widened is what choosing between the run's rule set and the wide
	// one found (see [Run.Widen]), or nil when there was no choice.
	Widened *Widening
	Tuned   *scoring.Tuning
	// FullTuned is, when the best Top rules per head are kept, the tuning
	// of the whole file (Tuned is the kept rules').
	FullTuned *scoring.Tuning
	Top       int
	// TopFrom is the number of head relations whose Top rules are each of
	// KeepTop's candidate sets (by support × weight, covering, ranking),
	// and TopMRR each set's valid MRR alone, under its own aggregation
	// chosen on valid (none without a valid split).
	TopFrom    [3]int
	TopMRR     [3]float64
	FullRules  int
	Directives []datalog.Aggregate
	// RuleGroups are the @groups directives of the relations Directives
	// rank grouped (scoring.Tuning.Groups).
	RuleGroups []datalog.RuleGroups
	Coverage   *scoring.Coverage
	Metrics    *linkpred.Report
}

// Grouped reports whether the run was mined in head groups: the header and
// the saved model then say so.
func (r *Run) Grouped() bool { return r.Result.Groups != nil }

// History is the epochs of every model, group after group.
func (r *Run) History() []miner.EpochStats {
	var h []miner.EpochStats
	for _, m := range r.Result.Models {
		h = append(h, m.History()...)
	}
	return h
}

// ModelSet is the run's models as the coverage line and an evaluation
// score with them: each relation by the model of its group.
func (r *Run) ModelSet() *ModelSet {
	if !r.Grouped() {
		return Single(r.Result.Models[0])
	}
	set := &ModelSet{Models: r.Result.Models}
	for k := range r.Result.Models {
		set.Heads = append(set.Heads, r.Result.Groups[k].Heads)
	}
	return set
}

// TopLine says what keeping the best Top rules per head costs on valid.
func (r *Run) TopLine() string {
	n := r.Top
	full := r.FullTuned.Chosen
	share := 0.0
	if full > 0 {
		share = 100 * r.Tuned.Chosen / full
	}
	f, m := r.TopFrom, r.TopMRR
	return fmt.Sprintf("the best %d rules per head (%d of %d; by support × confidence, covering or ranking for %d, %d and %d relations, valid MRR alone %.3f, %.3f and %.3f): valid MRR %.3f, the whole file's %.3f (%.1f%%)",
		n, len(r.Result.Rules), r.FullRules, f[0], f[1], f[2], m[0], m[1], m[2], r.Tuned.Chosen, full, share)
}

// Header is the comment that starts the mined file.
func (r *Run) Header() string {
	rules, cfg := r.Result.Rules, r.Config
	header := fmt.Sprintf("%s: %d rules for %d head relations from %s\n", rulefile.MinedHeader, len(rules), CountHeads(rules), r.From)
	if r.Grouped() {
		header += r.GroupHeader()
	} else {
		header += fmt.Sprintf("%% T=%d L=%d batch=%d seed=%d epochs=%d", cfg.MaxLen, cfg.Rank, cfg.Batch, cfg.Seed, len(r.History()))
	}
	if r.Stopped != nil {
		header += "\n% interrupted: these are the rules of the weights when training was stopped"
	}
	if r.Cut {
		header += "\n% " + r.CutLine()
	}
	if r.Widened != nil {
		header += "\n% " + r.Widened.Describe()
	}
	if r.Tuned != nil {
		header += "\n% " + describeTuning(r.Tuned)
	}
	if r.FullTuned != nil {
		header += "\n% " + r.TopLine()
	}
	return header
}

// describeTuning is the line drumql mine prints about the aggregation it
// chose.
func describeTuning(t *scoring.Tuning) string {
	return fmt.Sprintf("aggregation %s chosen on %d valid queries (MRR %.3f; %d relations rank better their own way)",
		t.Directives[0].Describe(), t.Queries, t.Chosen, len(t.Directives)-1)
}

// GroupHeader is the comment that follows the first line of a mined file
// of a group run: the settings, the epochs of each group and the groups.
func (r *Run) GroupHeader() string {
	cfg := r.Config
	var sb strings.Builder
	fmt.Fprintf(&sb, "%% T=%d L=%d batch=%d seed=%d epochs=", cfg.MaxLen, cfg.Rank, cfg.Batch, cfg.Seed)
	for k, m := range r.Result.Models {
		if k > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprint(&sb, len(m.History()))
	}
	fmt.Fprintf(&sb, " (per head group)\n%% %d head groups, balanced by training queries (mine --head-groups):", len(r.Result.Groups))
	for k, gr := range r.Result.Groups {
		fmt.Fprintf(&sb, "\n%% group %d (%d training queries): %s", k+1, gr.Queries, strings.Join(gr.Heads, " "))
		if k >= len(r.Result.Models) {
			sb.WriteString(" (not mined: interrupted)")
		}
	}
	return sb.String()
}

// CountHeads counts the distinct head predicates of rules.
func CountHeads(rules []miner.MinedRule) int {
	n := 0
	for i := range rules {
		if i == 0 || rules[i].Head != rules[i-1].Head {
			n++
		}
	}
	return n
}

// ChooseAggregation sets the aggregation recorded in the rule file:
// "noisy-or" records noisy-or, "auto" chooses it on the store's valid split
// (scoring.ChooseAggregation), and anything else, an interrupted run, or a
// store without a valid split records max. It returns the number of valid
// queries the choice was made on (0 when none was made).
func (r *Run) ChooseAggregation(ctx context.Context, how string) (int, error) {
	rules := r.Result.Rules
	r.Directives, r.RuleGroups = []datalog.Aggregate{{Method: "max"}}, nil
	switch how {
	case "noisy-or":
		r.Directives = []datalog.Aggregate{{Method: "noisy_or"}}
		return 0, nil
	case "auto":
		if r.Stopped != nil {
			return 0, nil
		}
	default:
		return 0, nil
	}
	vq, err := scoring.ValidQueries(r.Store)
	if err != nil {
		return 0, err
	}
	if len(vq) == 0 || len(rules) == 0 {
		return 0, nil
	}
	prog := &datalog.Program{Rules: miner.DatalogRules(rules)}
	if r.Tuned, err = scoring.ChooseAggregation(ctx, r.Store, r.Graph, prog, vq); err != nil {
		return 0, err
	}
	r.Directives, r.RuleGroups = r.Tuned.Directives, r.Tuned.Groups
	return len(vq), nil
}

// KeepTop keeps the best n rules per head (none when n <= 0): those
// with the highest support × weight (miner.TopRules), those that together
// cover the most of the head's training facts (scoring.TopByCoverage), or
// those whose ranking of its training facts' answers is best
// (scoring.TopByRank), whichever ranks the head's valid queries best (per
// relation with enough valid queries; the best overall for the others);
// without a valid split, support × weight. After an aggregation chosen on
// valid, it chooses theirs and keeps the whole file's in FullTuned (see
// TopLine).
func (r *Run) KeepTop(ctx context.Context, n int) error {
	if n <= 0 {
		return nil
	}
	r.Top, r.FullRules = n, len(r.Result.Rules)
	top, p, vq, err := r.topSets(ctx, r.Result.Rules, n)
	if err != nil {
		return err
	}
	r.Result.Rules = top
	if p != nil {
		for k, t := range p.tunings {
			r.TopFrom[k], r.TopMRR[k] = p.from[k], t.Chosen
		}
	}
	if len(vq) == 0 {
		return nil
	}
	prog := &datalog.Program{Rules: miner.DatalogRules(r.Result.Rules)}
	r.FullTuned = r.Tuned
	if r.Tuned, err = scoring.ChooseAggregation(ctx, r.Store, r.Graph, prog, vq); err != nil {
		return err
	}
	r.Directives, r.RuleGroups = r.Tuned.Directives, r.Tuned.Groups
	return nil
}

// topSets returns the best n rules per head of all as KeepTop keeps them,
// the choice among the candidate sets (by support × weight, covering,
// ranking), and the valid queries it was made on (none, and no choice:
// support × weight for every head).
func (r *Run) topSets(ctx context.Context, all []miner.MinedRule, n int) ([]miner.MinedRule, *amongSets, []linkpred.Query, error) {
	byValue := miner.TopRules(all, n)
	if r.Tuned == nil || r.Store == nil {
		return byValue, nil, nil, nil
	}
	vq, err := scoring.ValidQueries(r.Store)
	if err != nil || len(vq) == 0 {
		return byValue, nil, nil, err
	}
	cover, rank, err := scoring.TopSets(ctx, r.Store, r.Graph.Snapshot(), all, n)
	if err != nil {
		return nil, nil, nil, err
	}
	p, err := chooseAmong(ctx, r, vq, byValue, cover, rank)
	if err != nil {
		return nil, nil, nil, err
	}
	return p.rules, p, vq, nil
}
