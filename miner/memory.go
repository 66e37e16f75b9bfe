package miner

import (
	"os"
	"runtime/debug"

	"github.com/drumql/drumql/store"
)

// Shape is what the memory needed to mine a graph depends on, besides the
// configuration.
type Shape struct {
	Entities  int // E
	Relations int // R
	Facts     int // edges of the graph
	Queries   int // training and validation triples (at most Facts + valid)
	// RowPointers is the number of row pointers and row ids the per-relation
	// adjacencies of M_r and M_rᵀ hold (store.CSR: E+1 for a dense one, two
	// per stored row for a hypersparse one). Zero means every adjacency is
	// dense: 2·R·(E+1).
	RowPointers int64
}

// ShapeOf returns the shape of a store snapshot, counting queries as the
// graph's facts (the train split is a subset of the graph) plus valid.
func ShapeOf(snap *store.Snapshot, valid int) Shape {
	s := Shape{Entities: len(snap.Entities), Relations: len(snap.Relations)}
	for r := range snap.Out {
		s.Facts += len(snap.Out[r].Col)
		for _, m := range []*store.CSR{&snap.Out[r], &snap.In[r]} {
			s.RowPointers += int64(len(m.RowPtr) + len(m.RowIDs))
		}
	}
	s.Queries = s.Facts + valid
	return s
}

// Memory estimate constants, measured (docs/BENCHMARKS.md, "Memory
// estimate"): the Go runtime, the CLI, the store and rule extraction on a
// tiny graph; bytes per entity name (string header, name, name -> index map
// entry); bytes per query (dense triple, batch copy, the facts-split lookup
// map); and the collector's headroom, in tenths: the heap grows past the
// live data between collections (GOGC=100 allows up to twice), measured at
// about 30% over the live data.
//
// The rule step's: bytes per rule of the mined file and per step of T (the
// MinedRule with its Datalog rule, terms, canonical key and comment, and
// the copy applied to the queries; a rule has up to T body atoms); bytes
// per proposal of the beam while a head is extracted (its operators, path,
// key and scores); and bytes per entity of applying the rules to queries,
// once (the entity list, the maps from symbols to its positions, the
// reasoner's entity names) and per worker (the reasoner's and the
// ranking's per-entity scratch, one query's candidates).
const (
	memBase      = 32 << 20
	memPerEntity = 96
	memPerQuery  = 96
	memGCTenths  = 13

	memPerRuleStep       = 600
	memPerProposal       = 300
	memApplyEntity       = 150
	memApplyEntityWorker = 100
)

// RuleStep describes what the memory of the rule step after training
// depends on besides the graph's shape and the training configuration. The
// zero value means no rule step: EstimateMemory then covers training only.
type RuleStep struct {
	// Beam, Candidates and MaxRules are the chain-rule extraction settings
	// (ExtractOptions), ConstantRules the rules with constants kept per head
	// (ConstOptions.PerHead); zero takes their defaults. NoConstants says
	// no rules with constants are mined.
	Beam, Candidates, MaxRules, ConstantRules int
	NoConstants                               bool
	// Apply says the rules are then applied to held-out queries, one query
	// at a time (drumql mine's choice of the aggregation).
	Apply bool
	// ScoreBatch is the number of queries the model then scores together
	// with one scorer (drumql mine's coverage line); 0 means none.
	ScoreBatch int
	// Heads is the number of head relations whose rules are read (mine
	// --heads); 0 means every relation.
	Heads int
	// FromModel says nothing is trained: the model is read from a file
	// (drumql mine --from-model), so the estimate is the rule step's, and
	// the parameters are held without gradient and Adam moments.
	FromModel bool
}

// withDefaults gives zero settings the defaults of ExtractOptions and
// ConstOptions, and counts no rules with constants under NoConstants.
func (rs RuleStep) withDefaults() RuleStep {
	x := ExtractOptions{Beam: rs.Beam, MaxRules: rs.MaxRules, Candidates: rs.Candidates}.WithDefaults()
	rs.Beam, rs.MaxRules, rs.Candidates = x.Beam, x.MaxRules, x.Candidates
	rs.ConstantRules = ConstOptions{PerHead: rs.ConstantRules}.WithDefaults().PerHead
	if rs.NoConstants {
		rs.ConstantRules = 0
	}
	return rs
}

// EstimateMemory returns the bytes that mining a graph of shape s with cfg
// (defaults applied), then the rule step rs, needs at its peak.
//
// Throughout, the graph (per relation, the row pointers of M_r and M_rᵀ,
// s.RowPointers·4 bytes: E+1 for a dense adjacency, two per entity it
// touches for a hypersparse one, see csr.HypersparseRatio; and 12 bytes
// per fact; the neighbourhood and the
// gather and scatter incidence lists, about 72 bytes per fact), the names
// and the model's parameters
// with their gradient and Adam moments. Then the larger of:
//
//   - training: the queries and the propagation blocks (2·L tasks of T+1
//     entity × column float32 blocks with a column mask per entity, and
//     two such blocks per worker, for
//     as many columns as are propagated together: the batch, or a chunk of
//     it on large graphs);
//   - the rule step, which starts once training's blocks are collected: the
//     rules, H·(MaxRules + ConstantRules) at most for H head relations (all R,
//     or rs.Heads), of memPerRuleStep bytes
//     per step of T each, and the largest of its parts, which follow each
//     other: extraction (per worker, up to R of them, 2·Beam proposals of
//     memPerProposal bytes and Candidates built rules), applying the rules
//     (memApplyEntity bytes per entity, memApplyEntityWorker more per
//     worker, and the slot prior, 16 bytes per fact) and the model's
//     scoring (one scorer: L·(T+1) task blocks with their column masks,
//     two per worker and two of dense scores, each E × ScoreBatch float32,
//     and its copy of the graph's operators).
//
// All of it times the collector's headroom (1.3), plus a constant for the
// runtime.
func EstimateMemory(s Shape, cfg Config, rs RuleStep) int64 {
	cfg = cfg.WithDefaults()
	E, R, F := int64(s.Entities), int64(s.Relations), int64(s.Facts)
	L, T := int64(cfg.Rank), int64(cfg.MaxLen)
	threads := int64(cfg.Threads)
	B := int64(chunkWidth(blockBudget, s.Entities, cfg.Rank, cfg.MaxLen, cfg.Batch))
	rowPtrs := s.RowPointers
	if rowPtrs == 0 {
		rowPtrs = 2 * R * (E + 1)
	}
	csr := rowPtrs*4 + 12*F // CSR of M_r and M_rᵀ
	graph := csr +
		8*(E+1) + 8*F + // undirected neighbourhood (64-bit offsets)
		16*(E+1) + 24*F + 16*F + // incidence lists and column degrees
		8*(E+1) + 24*F + // scatter incidence lists
		F/8 // edge masks
	names := E * memPerEntity
	queries := int64(s.Queries) * memPerQuery
	params := 4 * 8 * int64(newLayout(cfg, s.Relations).size)
	tasks := 2 * L * ((T+1)*E*(B*4+8) + 20*E) // blocks, column masks, per-entity scratch
	workers := min(threads, 2*L) * (4*E + 2*E*B*4)
	train := queries + tasks + workers
	if rs.FromModel {
		train, params = 0, params/4
	}
	var step int64
	if rs != (RuleStep{}) {
		rs = rs.withDefaults()
		perRule := memPerRuleStep * T
		heads := R
		if rs.Heads > 0 {
			heads = min(R, int64(rs.Heads))
		}
		rules := heads * int64(rs.MaxRules+rs.ConstantRules) * perRule
		extract := min(threads, R) * (2*int64(rs.Beam)*memPerProposal + int64(rs.Candidates)*perRule)
		var apply, score int64
		if rs.Apply {
			apply = (memApplyEntity+threads*memApplyEntityWorker)*E + 16*F
		}
		if rs.ScoreBatch > 0 {
			W := min(int64(rs.ScoreBatch), B)
			score = (L*(T+1)+2*min(threads, L)+2)*E*W*4 + L*(T+1)*E*8 + csr
		}
		step = rules + max(extract, apply, score)
	}
	return memBase + (graph+names+params+max(train, step))*memGCTenths/10
}

// SoftMemoryLimit makes need (EstimateMemory's) the Go collector's soft
// memory limit (runtime/debug.SetMemoryLimit) and returns the function
// that restores the previous limit. With the default GOGC the heap grows
// to twice the live data between collections: on FB15k-237 the rule
// step's live heap peaks at 367 MB and its RSS at 900 MB. Under the limit
// the collector runs more often as the heap approaches the estimate, so
// the peak follows the estimate; the limit is soft (live data past it is
// kept, and the collector's CPU is capped). A GOMEMLIMIT in the
// environment is the user's choice and is left as it is, as is the limit
// when need is not positive.
func SoftMemoryLimit(need int64) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" || need <= 0 {
		return func() {}
	}
	prev := debug.SetMemoryLimit(need)
	return func() { debug.SetMemoryLimit(prev) }
}
