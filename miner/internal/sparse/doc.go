// Package sparse provides the sparse × dense kernels used by the DRUM miner.
//
// Matrices are pattern-only CSR (compressed sparse row) with int32 column
// indices: every stored entry has value 1, and operator weights are passed
// as scalars (alpha). Dense blocks are row-major float32 with B columns (the
// batch width), so row i of an n×B block x is x[i*B:(i+1)*B] and every
// nonzero of a sparse product is one contiguous multiply-add of width B.
//
// Each CSR entry can carry an edge id (CSR.Edge). A Mask is a bitset over
// edge ids; the kernels skip entries whose edge id is set in the mask, so a
// training batch can hide its own edges from both M_r and M_rᵀ (Transpose
// keeps edge ids) without rebuilding the graph.
//
// Two kernel sets exist: a pure-Go reference that is always built and is the
// oracle in tests, and an AVX2/AVX-512 variant built with GOEXPERIMENT=simd on
// amd64 (package simd/archsimd), chosen at run time from the CPU features.
// Kernel reports which one is in use. SIMD results differ from the reference
// only by floating-point rounding (fused multiply-add, different partial-sum
// order); within one kernel set results are deterministic.
//
// The kernels run on the calling goroutine: the miner parallelises across
// independent (direction, rank) tasks, each calling the kernels serially.
package sparse
