package miner

import (
	"runtime"

	"github.com/drumql/drumql/internal/pkgerr"
)

// Config holds the DRUM hyper-parameters. The zero value means the defaults
// of the paper and the original code (the flag defaults of its
// src/main.py); a zero or negative field takes its default.
type Config struct {
	// MaxLen is T, the maximum rule body length (the original num_step − 1).
	// Default 2.
	MaxLen int `json:"max_len"`
	// Rank is L, the number of rank-one terms (BiLSTMs). Default 3.
	Rank int `json:"rank"`
	// Hidden is the LSTM state size per direction. Default 128.
	Hidden int `json:"hidden"`
	// Embed is the query embedding size. Default 128.
	Embed int `json:"embed"`
	// Batch is the number of training triples per batch; each triple is
	// asked in both directions, so a batch holds 2·Batch queries. Default 64.
	Batch int `json:"batch"`
	// LR is the Adam learning rate (β1 0.9, β2 0.999, ε 1e-8). Default 0.001.
	LR float64 `json:"lr"`
	// Clip bounds every gradient element to [−Clip, Clip] before the Adam
	// step. Default 5.
	Clip float64 `json:"clip"`
	// MaxEpochs is the maximum number of epochs. Default 10.
	MaxEpochs int `json:"max_epochs"`
	// MinEpochs is the number of epochs before early stopping may stop
	// training: after epoch e ≥ MinEpochs, training stops when neither the
	// mean validation loss nor the raw validation Hits@10 equals its best so
	// far. Without a "valid" split all MaxEpochs run. Default 5.
	MinEpochs int `json:"min_epochs"`
	// Seed seeds the PCG generator used for initialisation; 0 means 33, the
	// original code's seed.
	Seed uint64 `json:"seed"`
	// Threads bounds the goroutines used for propagation; 0 means
	// runtime.GOMAXPROCS(0). Results do not depend on it.
	Threads int `json:"-"`
	// Heads restricts training queries (and so the rules learnt) to these
	// head relations; empty means every relation.
	Heads []string `json:"heads,omitempty"`
	// NoValid disables the validation pass (and early stopping) even when the
	// store has a "valid" split.
	NoValid bool `json:"no_valid,omitempty"`
	// MaxQueries bounds the work of an epoch on large graphs: an epoch trains
	// on at most MaxQueries triples of each relation (a seeded sample drawn
	// afresh every epoch, kept in file order) and the validation pass uses at
	// most MaxQueries triples of each relation (one seeded sample for the
	// whole run). Relations with fewer triples use all of them, every epoch,
	// exactly as without a bound. 0 means DefaultMaxQueries; a negative value
	// means no bound.
	MaxQueries int `json:"max_queries,omitempty"`
	// MaxFanOut caps hubs in propagation: an entity with more than
	// MaxFanOut neighbours through one operator (a gender value through
	// inv_gender, a country through inv_citizen_of) passes no mass through
	// that operator, in training and in the model's scores. Such a step
	// spreads a query's mass over most of the graph, which costs time in
	// proportion to the graph for every query that reaches the hub and
	// ranks nothing. Rules, their support and confidences are counted on
	// the exact graph. 0 means DefaultMaxFanOut; a negative value means no
	// cap.
	MaxFanOut int `json:"max_fan_out,omitempty"`
}

// Defaults of Config.
const (
	DefaultMaxLen    = 2
	DefaultRank      = 3
	DefaultHidden    = 128
	DefaultEmbed     = 128
	DefaultBatch     = 64
	DefaultLR        = 0.001
	DefaultClip      = 5
	DefaultMaxEpochs = 10
	DefaultMinEpochs = 5
	DefaultSeed      = 33
	// DefaultMaxQueries is the default bound on the training triples of a
	// relation per epoch (and on its validation triples).
	DefaultMaxQueries = 2048
	// DefaultMaxFanOut is the default hub cap. No entity of the benchmark
	// datasets reaches it (FB15k-237's largest fan-out through one operator
	// is 3,612).
	DefaultMaxFanOut = 10000
)

// Numeric constants of the original code.
const (
	thr        = 1e-20 // log clamp and normalisation floor
	forgetBias = 1.0   // TF LSTMCell forget_bias
	adamBeta1  = 0.9
	adamBeta2  = 0.999
	adamEps    = 1e-8
	topK       = 10 // raw Hits@k used for early stopping
)

// WithDefaults returns c with every unset field replaced by its default.
func (c Config) WithDefaults() Config {
	orDefault(&c.MaxLen, DefaultMaxLen)
	orDefault(&c.Rank, DefaultRank)
	orDefault(&c.Hidden, DefaultHidden)
	orDefault(&c.Embed, DefaultEmbed)
	orDefault(&c.Batch, DefaultBatch)
	orDefault(&c.MaxEpochs, DefaultMaxEpochs)
	orDefault(&c.MinEpochs, DefaultMinEpochs)
	orDefault(&c.Threads, runtime.GOMAXPROCS(0))
	orDefault(&c.LR, DefaultLR)
	orDefault(&c.Clip, DefaultClip)
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.MaxQueries == 0 {
		c.MaxQueries = DefaultMaxQueries
	}
	if c.MaxFanOut == 0 {
		c.MaxFanOut = DefaultMaxFanOut
	}
	return c
}

// orDefault replaces *v by d when it is not positive (unset: zero, or a
// meaningless negative value).
func orDefault[T int | float64](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// MaxRuleLen is the largest Config.MaxLen the miner accepts.
const MaxRuleLen = 16

// validate reports impossible settings of a defaulted config. MinEpochs
// above MaxEpochs is allowed: early stopping then never triggers, as in the
// original code.
func (c Config) validate() error {
	if c.MaxLen > MaxRuleLen {
		return pkgerr.Newf("miner: MaxLen %d is too large (at most %d)", c.MaxLen, MaxRuleLen)
	}
	return nil
}
