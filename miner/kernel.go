package miner

import "github.com/drumql/drumql/miner/internal/sparse"

// Kernel names the sparse propagation kernels this binary uses: "generic"
// (pure Go), or "avx2" / "avx512" when built with GOEXPERIMENT=simd on a CPU
// that has them.
func Kernel() string { return sparse.Kernel() }
