// Package profile starts the profiles of a drumql run that its environment
// asks for ([Start]): DRUMQL_CPUPROFILE=FILE writes a CPU profile of the
// run, DRUMQL_MEMPROFILE=FILE the allocation profile of the whole run, for
// go tool pprof (-sample_index=alloc_space), DRUMQL_HEAPPEAK=FILE the heap
// profile when the live heap was largest (-sample_index=inuse_space), and
// DRUMQL_TRACE=FILE an execution trace of the run, for go tool trace.
//
// It is a leaf: it imports the standard library and internal/atomicfile
// only, and every package of the module may import it (docs/ARCHITECTURE.md,
// "The dependency rule").
package profile
