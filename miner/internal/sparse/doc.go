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
// The kernels come in three sets, chosen once at start-up: "generic", the
// pure-Go reference, always built and the oracle in tests; and, in a build
// with GOEXPERIMENT=simd on amd64 (package simd/archsimd), "avx512" on a CPU
// with AVX-512 (every kernel vectorised: the row kernels Axpy and Dot and
// what uses them, the column kernels, GatherAdd and Adam), else "avx2" on a
// CPU with AVX2 and FMA (only the row kernels vectorised; the column
// kernels, GatherAdd and Adam are the reference's), else "generic". Kernel
// reports which one is in use. SIMD results differ from the reference only
// by floating-point rounding (fused multiply-add, different partial-sum
// order); within one kernel set results are deterministic.
//
// The kernels run on the calling goroutine: the miner parallelises across
// independent (direction, rank) tasks, each calling the kernels serially.
package sparse
