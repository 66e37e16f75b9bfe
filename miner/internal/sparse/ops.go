package sparse

// kernels is a set of kernels; one set is chosen at start-up.
type kernels struct {
	name   string
	axpy   func(d []float32, alpha float32, x []float32)
	dot    func(a, b []float32) float64
	col    colKernels
	gather func(dst []float32, in *Incidence, a []float32, skip Skip, x []float32, B int, rows []int32)
	adam   func(p, g, m, v []float64, a AdamParams)
}

var genericKernels = kernels{
	name:   "generic",
	axpy:   refAxpy,
	dot:    refDot64,
	col:    refCols,
	gather: refGather,
	adam:   refAdam,
}

// kern is the kernel set in use.
var kern = selectKernels()

// Kernel returns the name of the kernel set in use: "generic" (pure Go),
// "avx2" or "avx512".
func Kernel() string { return kern.name }

// VecChunk is the number of elements of one partial sum of Dot.
const VecChunk = 4096

// Axpy computes dst += alpha*x (len(x) must be >= len(dst)); with dst and x
// the operator input and output blocks this is the identity operator.
func Axpy(dst []float32, alpha float32, x []float32) {
	if len(x) < len(dst) {
		panic("sparse.Axpy: len(x) < len(dst)")
	}
	kern.axpy(dst, alpha, x)
}

// Dot returns Σ a[c]*b[c] (len(b) must be >= len(a)), summed per block of
// VecChunk elements in float32 and across blocks in float64.
func Dot(a, b []float32) float64 {
	if len(b) < len(a) {
		panic("sparse.Dot: len(b) < len(a)")
	}
	var s float64
	for c := 0; c < len(a); c += VecChunk {
		e := min(c+VecChunk, len(a))
		s += kern.dot(a[c:e], b[c:e])
	}
	return s
}
