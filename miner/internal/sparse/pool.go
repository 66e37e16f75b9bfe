package sparse

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Pool runs the kernels on a bounded number of goroutines. The work is split
// into fixed-size chunks (RowChunk rows or VecChunk elements) handed out to
// at most Threads() goroutines; every output row is written by exactly one
// goroutine and every reduction is combined in chunk order, so results are
// byte-identical to the serial package functions for any thread count.
// A Pool holds no goroutines between calls and is safe for concurrent use.
// The zero value and a nil *Pool run serially.
type Pool struct {
	threads int
}

// NewPool returns a pool using up to threads goroutines per call;
// threads <= 0 means runtime.GOMAXPROCS(0).
func NewPool(threads int) *Pool {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	return &Pool{threads: threads}
}

// Threads returns the maximum number of goroutines used per call.
func (p *Pool) Threads() int {
	if p == nil || p.threads < 1 {
		return 1
	}
	return p.threads
}

// For calls f(lo, hi) for the consecutive ranges [0,chunk), [chunk,2chunk),
// …, covering [0,n), on up to Threads() goroutines, and returns when all
// calls have returned. The ranges do not depend on the thread count; f must
// be safe to call concurrently on different ranges.
func (p *Pool) For(n, chunk int, f func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if chunk < 1 {
		chunk = 1
	}
	nc := (n + chunk - 1) / chunk
	w := min(p.Threads(), nc)
	if w <= 1 {
		for lo := 0; lo < n; lo += chunk {
			f(lo, min(lo+chunk, n))
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			c := int(next.Add(1) - 1)
			if c >= nc {
				return
			}
			lo := c * chunk
			f(lo, min(lo+chunk, n))
		}
	}
	var wg sync.WaitGroup
	for range w - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// MulAdd is the parallel form of the package function MulAdd.
func (p *Pool) MulAdd(dst []float32, m *CSR, x []float32, B int, alpha float32, mask *Mask) {
	checkMul("Pool.MulAdd", len(dst), m, len(x), B)
	if B == 0 {
		return
	}
	p.For(m.Rows, RowChunk, func(lo, hi int) {
		kern.mulAdd(dst, m, x, B, alpha, mask, lo, hi)
	})
}

// EdgeDot is the parallel form of the package function EdgeDot; the result
// is bit-identical to it.
func (p *Pool) EdgeDot(m *CSR, g, x []float32, B int, mask *Mask) float64 {
	checkMul("Pool.EdgeDot", len(g), m, len(x), B)
	if p.Threads() == 1 {
		return EdgeDot(m, g, x, B, mask)
	}
	part := make([]float64, (m.Rows+RowChunk-1)/RowChunk)
	p.For(m.Rows, RowChunk, func(lo, hi int) {
		part[lo/RowChunk] = kern.edgeDot(m, g, x, B, mask, lo, hi)
	})
	var s float64
	for _, v := range part {
		s += v
	}
	return s
}

// Axpy is the parallel form of the package function Axpy.
func (p *Pool) Axpy(dst []float32, alpha float32, x []float32) {
	if len(x) < len(dst) {
		panic("sparse.Pool.Axpy: len(x) < len(dst)")
	}
	p.For(len(dst), VecChunk, func(lo, hi int) { kern.axpy(dst[lo:hi], alpha, x[lo:hi]) })
}

// Dot is the parallel form of the package function Dot; the result is
// bit-identical to it.
func (p *Pool) Dot(a, b []float32) float64 {
	if len(b) < len(a) {
		panic("sparse.Pool.Dot: len(b) < len(a)")
	}
	if p.Threads() == 1 {
		return Dot(a, b)
	}
	part := make([]float64, (len(a)+VecChunk-1)/VecChunk)
	p.For(len(a), VecChunk, func(lo, hi int) { part[lo/VecChunk] = kern.dot(a[lo:hi], b[lo:hi]) })
	var s float64
	for _, v := range part {
		s += v
	}
	return s
}

// Scale is the parallel form of the package function Scale.
func (p *Pool) Scale(dst []float32, alpha float32) {
	p.For(len(dst), VecChunk, func(lo, hi int) { kern.scale(dst[lo:hi], alpha) })
}
