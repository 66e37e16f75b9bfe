package miner

import "github.com/drumql/drumql/miner/internal/sparse"

// Kernel names the sparse propagation kernels this binary uses: "generic"
// (pure Go), or, when built with GOEXPERIMENT=simd on amd64, "avx512" on a
// CPU with AVX-512 and "avx2" on one with AVX2 and FMA (which vectorises the
// row kernels only: see package sparse).
func Kernel() string { return sparse.Kernel() }
