package miner

import "runtime"

// ExtractOptions control rule extraction. The zero value means the defaults.
type ExtractOptions struct {
	// Heads lists the head relations to extract rules for; empty means the
	// model's Config.Heads, or every relation when that is empty too.
	Heads []string `json:"heads,omitempty"`
	// Beam is the number of partial bodies kept per step of the beam
	// search. Default DefaultBeam.
	Beam int `json:"beam,omitempty"`
	// MinScore drops bodies whose raw score Σ_j Π_t a_{j,t,k_t} is below it
	// (the prefix score bounds every completion, so the pruning is exact).
	// Default DefaultMinScore (the original code's rule_thr was 0.01, with
	// MaxRules 20: the rules are now chosen by confidence on the graph, so
	// DRUM may propose many more).
	MinScore float64 `json:"min_score,omitempty"`
	// PathMinScore drops the bodies the path samples propose whose score
	// (computed from the attention) is below it; 0 keeps them whatever
	// their score.
	PathMinScore float64 `json:"path_min_score,omitempty"`
	// MaxRules is the maximum number of rules per head relation. Default
	// DefaultMaxRules.
	MaxRules int `json:"max_rules,omitempty"`
	// Candidates is the number of bodies per head relation, the best by
	// DRUM score, whose support is counted; when weighting by confidence,
	// the MaxRules best of them by smoothed confidence are kept (DRUM
	// proposes, the graph chooses). Default DefaultCandidates, and never
	// fewer than MaxRules.
	Candidates int `json:"candidates,omitempty"`
	// SupportBudget bounds the edge visits of counting one rule's support
	// exactly: the starts of the body (the entities its first atom can
	// bind) are counted in a seeded random order, and once SupportBudget
	// edges have been visited, the counts of the starts done so far are
	// scaled to all of them (an estimate from a uniform sample; see
	// MinedRule.Sampled). Default DefaultSupportBudget.
	SupportBudget int `json:"support_budget,omitempty"`
	// Threads bounds the goroutines that extract head relations in
	// parallel; 0 means runtime.GOMAXPROCS(0). The result does not depend
	// on it.
	Threads int `json:"-"`
	// Graph, if not nil, is used to count each rule's support (groundings
	// of the body whose head fact holds) and body groundings for the
	// comment; default the graph the model was trained on (none after Load).
	Graph *Graph `json:"-"`
	// NoSupport disables the support counts.
	NoSupport bool `json:"no_support,omitempty"`
	// KeepVacuous keeps rules whose body has no grounding in the graph.
	// By default, when support is counted, such rules are dropped: they can
	// never fire on this graph (they arise when a step's mass is lost and
	// the per-step normalisation scales the rest back up).
	KeepVacuous bool `json:"keep_vacuous,omitempty"`
	// MinSupport drops, when support is counted, rules whose body predicts
	// fewer than MinSupport facts of the graph correctly: a rule that never
	// holds on the data it was mined from is noise of the attention (it
	// arises on small graphs and short training). Default
	// DefaultMinSupport; a negative
	// value keeps every rule. Weights are normalised over the rules kept.
	MinSupport int `json:"min_support,omitempty"`
	// Weight chooses the rule weights written out (see WeightBy); the zero
	// value is WeightConfidence.
	Weight WeightBy `json:"weight,omitempty"`
	// Smoothing is the number of unseen counter-examples added to the body
	// count of the confidence weight (AnyBURL's "unseen negative
	// examples"): support/(body+Smoothing). Default DefaultSmoothing; negative means
	// 0.
	Smoothing int `json:"smoothing,omitempty"`
	// HeadBudget bounds the edge visits of counting the support of all the
	// bodies of one head relation, in the order they are proposed (the
	// beam's by score, then the paths'); once it is spent, the bodies left
	// are not counted, and so not kept when weighting by confidence.
	// Default DefaultHeadBudget; the count never depends on time or
	// threads.
	HeadBudget int `json:"head_budget,omitempty"`
	// PathSamples is the number of facts of each head relation whose
	// connecting paths in the graph propose bodies besides the attention's
	// (see Graph.samplePaths; only when weighting by confidence on a
	// graph). Default DefaultPathSamples; negative: none.
	PathSamples int `json:"path_samples,omitempty"`
	// PathLen is the longest body, 1 to MaxPathLen, the path samples
	// propose; 0 means the model's rule length T (at most MaxPathLen). A
	// PathLen above T proposes bodies longer than the attention reads.
	PathLen int `json:"path_len,omitempty"`
	// PathCandidates bounds the bodies the path samples propose per head
	// relation (those connecting the most sampled facts) whose support is
	// counted, besides the Candidates best by DRUM score. Default
	// DefaultPathCandidates.
	PathCandidates int `json:"path_candidates,omitempty"`
	// PathBudget bounds the edge visits of enumerating one sampled fact's
	// paths of length three. Default DefaultPathBudget.
	PathBudget int `json:"path_budget,omitempty"`
	// Seed seeds the samples of facts (with the head relation's index);
	// 0 means the model's seed.
	Seed uint64 `json:"seed,omitempty"`
}

// WeightBy is how extracted rules are weighted.
type WeightBy int

const (
	// WeightConfidence weights a rule by its smoothed confidence on the
	// graph, support/(body+Smoothing): DRUM proposes the rules (the
	// Candidates best by score), the graph chooses (the MaxRules best by
	// confidence) and calibrates them (with estimated counts past
	// SupportBudget). A head none of whose rules has support (or no graph)
	// falls back to WeightScore.
	WeightConfidence WeightBy = iota
	// WeightScore weights a rule by its raw DRUM score divided by the head's
	// best score, as the paper reads rules off the attention.
	WeightScore
)

// Defaults of ExtractOptions, the settings drumql mine was measured with
// (its flags read them).
const (
	DefaultBeam           = 4000
	DefaultMinScore       = 1e-6
	DefaultMaxRules       = 200
	DefaultCandidates     = 1000
	DefaultSupportBudget  = 100_000
	DefaultMinSupport     = 1
	DefaultSmoothing      = 5
	DefaultHeadBudget     = 100_000_000
	DefaultPathSamples    = 200
	DefaultPathCandidates = 300
	DefaultPathBudget     = 100_000
)

// MaxPathLen is the longest body the path samples propose
// (ExtractOptions.PathLen): the paths between two entities grow as the
// mean degree to the power of their length.
const MaxPathLen = maxSampledLen

// WithDefaults returns o with every unset field replaced by its default
// (Heads, Graph and Seed are left as they are: their defaults come from the
// model).
func (o ExtractOptions) WithDefaults() ExtractOptions {
	orDefault(&o.Beam, DefaultBeam)
	orDefault(&o.MinScore, DefaultMinScore)
	orDefault(&o.MaxRules, DefaultMaxRules)
	orDefault(&o.Candidates, DefaultCandidates)
	if o.Candidates < o.MaxRules {
		o.Candidates = o.MaxRules
	}
	orDefault(&o.SupportBudget, DefaultSupportBudget)
	orDefault(&o.Threads, runtime.GOMAXPROCS(0))
	if o.MinSupport == 0 {
		o.MinSupport = DefaultMinSupport
	}
	o.Smoothing = smoothing(o.Smoothing)
	orDefault(&o.HeadBudget, DefaultHeadBudget)
	if o.PathSamples == 0 {
		o.PathSamples = DefaultPathSamples
	}
	orDefault(&o.PathCandidates, DefaultPathCandidates)
	orDefault(&o.PathBudget, DefaultPathBudget)
	return o
}

// smoothing is the Smoothing option with its default: DefaultSmoothing
// for 0, none (0) for a negative value.
func smoothing(s int) int {
	if s == 0 {
		return DefaultSmoothing
	}
	return max(s, 0)
}
