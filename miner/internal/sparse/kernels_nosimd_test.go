//go:build !(goexperiment.simd && amd64)

package sparse

// simdKernels returns the SIMD kernel sets usable on this CPU (for tests):
// none in this build.
func simdKernels() []kernels { return nil }
