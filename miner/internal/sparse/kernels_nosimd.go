//go:build !(goexperiment.simd && amd64)

package sparse

// selectKernels returns the pure-Go reference kernels: this build has no
// SIMD support (it needs GOEXPERIMENT=simd on amd64).
func selectKernels() kernels { return genericKernels }
