package miner

import "github.com/drumql/drumql/store"

// Shape is what the memory needed to mine a graph depends on, besides the
// configuration.
type Shape struct {
	Entities  int // E
	Relations int // R
	Facts     int // edges of the graph
	Queries   int // training and validation triples (at most Facts + valid)
}

// ShapeOf returns the shape of a store snapshot, counting queries as the
// graph's facts (the train split is a subset of the graph) plus valid.
func ShapeOf(snap *store.Snapshot, valid int) Shape {
	s := Shape{Entities: len(snap.Entities), Relations: len(snap.Relations)}
	for r := range snap.Out {
		s.Facts += len(snap.Out[r].Col)
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
// about 30% over the live arrays.
const (
	memBase      = 32 << 20
	memPerEntity = 96
	memPerQuery  = 96
	memGCTenths  = 13
)

// EstimateMemory returns the bytes that mining a graph of shape s with cfg
// (defaults applied) needs at its peak: the graph (per relation, the row
// pointers of M_r and M_rᵀ, 2·R·(E+1)·4 bytes, and 12 bytes per fact; the
// neighbourhood and incidence lists, about 48 bytes per fact), the names,
// the queries, the model's parameters with their gradient and Adam moments,
// and the propagation blocks (2·L tasks of T+1 entity × column float32
// blocks, and two such blocks per worker, for as many columns as are
// propagated together: the batch, or a chunk of it on large graphs), all
// times the collector's
// headroom, plus a constant for the runtime.
func EstimateMemory(s Shape, cfg Config) int64 {
	cfg = cfg.WithDefaults()
	E, R, F := int64(s.Entities), int64(s.Relations), int64(s.Facts)
	L, T := int64(cfg.Rank), int64(cfg.MaxLen)
	B := int64(chunkWidth(blockBudget, s.Entities, cfg.Rank, cfg.MaxLen, cfg.Batch))
	graph := 2*R*(E+1)*4 + 12*F + // CSR of M_r and M_rᵀ
		4*(E+1) + 8*F + // undirected neighbourhood
		8*(E+1) + 24*F + 16*F + // incidence lists and column degrees
		F/8 // edge masks
	names := E * memPerEntity
	queries := int64(s.Queries) * memPerQuery
	params := 4 * 8 * int64(newLayout(cfg, s.Relations).size)
	tasks := 2 * L * ((T+1)*E*B*4 + 20*E)
	workers := min(int64(cfg.Threads), 2*L) * (4*E + 2*E*B*4)
	return memBase + (graph+names+queries+params+tasks+workers)*memGCTenths/10
}
