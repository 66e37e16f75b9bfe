package sparse

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmark graphs: random graphs with the size of real KGs (uniform
// random endpoints, so x rows are read in random order).
var benchGraphs = []struct {
	name       string
	nodes, nnz int
}{
	{"fb15k237", 14541, 272115},
	{"family", 3007, 23483},
}

type benchGraph struct {
	m, mt *CSR
	mask  *Mask
	x, g  []float32
	dst   []float32
}

var benchCache = map[string]*benchGraph{}

func getBenchGraph(name string, nodes, nnz, B int) *benchGraph {
	key := fmt.Sprint(name, B)
	if g, ok := benchCache[key]; ok {
		return g
	}
	rng := rand.New(rand.NewPCG(42, uint64(nodes)))
	src, dst := make([]int32, nnz), make([]int32, nnz)
	for e := range nnz {
		src[e], dst[e] = int32(rng.IntN(nodes)), int32(rng.IntN(nodes))
	}
	m := FromEdges(nodes, nodes, src, dst)
	mask := NewMask(nnz)
	for range 2 * 64 { // a training batch masks ~64 edges (both directions share ids)
		mask.Set(int32(rng.IntN(nnz)))
	}
	bg := &benchGraph{m: m, mt: m.Transpose(), mask: mask,
		x: randBlock(rng, nodes*B), g: randBlock(rng, nodes*B), dst: make([]float32, nodes*B)}
	benchCache[key] = bg
	return bg
}

// mulBytes is the number of bytes a row-tiled sparse product must move at
// least: per entry its column index (4 B, plus 4 B edge id when masked) and
// one x row (4·B B); per row its RowPtr (4 B) and one read and one write of
// the dst row (2·4·B B) — EdgeDot reads g instead of read+write dst, which
// is counted the same. The naive count nnz·(2·4·B + 4) is ~nnz/rows times
// larger on the dst part; we report the smaller, row-tiled figure.
func mulBytes(m *CSR, B int, masked bool) int64 {
	per := int64(4*B + 4)
	if masked {
		per += 4
	}
	return int64(m.NNZ())*per + int64(m.Rows)*int64(8*B+4)
}

func BenchmarkMulAdd(b *testing.B) {
	for _, gr := range benchGraphs {
		for _, B := range []int{1, 128} {
			for _, masked := range []bool{false, true} {
				name := fmt.Sprintf("%s/B%d/masked=%v/%s", gr.name, B, masked, Kernel())
				b.Run(name, func(b *testing.B) {
					bg := getBenchGraph(gr.name, gr.nodes, gr.nnz, B)
					var mask *Mask
					if masked {
						mask = bg.mask
					}
					b.SetBytes(mulBytes(bg.m, B, masked))
					b.ReportAllocs()
					for b.Loop() {
						MulAdd(bg.dst, bg.m, bg.x, B, 0.5, mask)
					}
				})
			}
		}
	}
}

func BenchmarkEdgeDot(b *testing.B) {
	for _, gr := range benchGraphs {
		for _, B := range []int{1, 128} {
			name := fmt.Sprintf("%s/B%d/%s", gr.name, B, Kernel())
			b.Run(name, func(b *testing.B) {
				bg := getBenchGraph(gr.name, gr.nodes, gr.nnz, B)
				b.SetBytes(mulBytes(bg.m, B, true))
				b.ReportAllocs()
				var s float64
				for b.Loop() {
					s += EdgeDot(bg.m, bg.g, bg.x, B, bg.mask)
				}
				_ = s
			})
		}
	}
}

// BenchmarkGatherAdd is MulAdd's product through incidence lists, as the
// miner's dense steps run it: the graph's entries spread over the 474
// operators of FB15k-237 (2·237 relations), each weighted by its operator's
// attention, in one pass over every row. Bytes count the operator index of
// each entry like MulAdd's masked edge id.
func BenchmarkGatherAdd(b *testing.B) {
	for _, gr := range benchGraphs {
		const B, K = 128, 474
		b.Run(fmt.Sprintf("%s/B%d/%s", gr.name, B, Kernel()), func(b *testing.B) {
			bg := getBenchGraph(gr.name, gr.nodes, gr.nnz, B)
			rng := rand.New(rand.NewPCG(3, 3))
			in := &Incidence{Ptr: make([]int64, len(bg.m.RowPtr)), Col: bg.m.Col, Op: make([]int32, len(bg.m.Col)), Edge: make([]int32, len(bg.m.Col))}
			for i, p := range bg.m.RowPtr {
				in.Ptr[i] = int64(p)
			}
			for p := range in.Op {
				in.Op[p], in.Edge[p] = int32(rng.IntN(K)), int32(p)
			}
			a := randBlock(rng, K)
			rows := make([]int32, gr.nodes)
			for i := range rows {
				rows[i] = int32(i)
			}
			b.SetBytes(mulBytes(bg.m, B, true))
			b.ReportAllocs()
			for b.Loop() {
				GatherAdd(bg.dst, in, a, Skip{}, bg.x, B, rows)
			}
		})
	}
}

// BenchmarkMulAddRowsOneHot is step 1 of DRUM: x is one-hot per column (B
// active rows), scattered through the transpose.
func BenchmarkMulAddRowsOneHot(b *testing.B) {
	for _, gr := range benchGraphs {
		const B = 128
		b.Run(fmt.Sprintf("%s/B%d/%s", gr.name, B, Kernel()), func(b *testing.B) {
			bg := getBenchGraph(gr.name, gr.nodes, gr.nnz, B)
			x := make([]float32, gr.nodes*B)
			rng := rand.New(rand.NewPCG(1, 1))
			for c := range B {
				x[rng.IntN(gr.nodes)*B+c] = 1
			}
			rows := NonzeroRows(x, B, nil)
			b.ReportAllocs()
			for b.Loop() {
				MulAddRows(bg.dst, bg.mt, x, B, 0.5, bg.mask, rows)
			}
		})
	}
}

const memBytes = 256 << 20

var memSrc, memDst []uint64

// xorSum reads s with eight independent chains so the loop is bound by
// memory, not by instruction latency.
func xorSum(s []uint64) uint64 {
	var a0, a1, a2, a3, a4, a5, a6, a7 uint64
	n := len(s) &^ 7
	for i := 0; i < n; i += 8 {
		v := s[i : i+8 : i+8]
		a0 ^= v[0]
		a1 ^= v[1]
		a2 ^= v[2]
		a3 ^= v[3]
		a4 ^= v[4]
		a5 ^= v[5]
		a6 ^= v[6]
		a7 ^= v[7]
	}
	return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7
}

// BenchmarkMemBandwidth measures the machine's memory bandwidth on 256 MB
// buffers, on one goroutine as the kernels run, independently of the kernel
// set: "read" XOR-sums a buffer (bytes = 256 MB), "copy" copies one buffer
// into another (bytes = 2·256 MB: read + write).
func BenchmarkMemBandwidth(b *testing.B) {
	if memSrc == nil {
		memSrc = make([]uint64, memBytes/8)
		memDst = make([]uint64, memBytes/8)
		for i := range memSrc {
			memSrc[i] = uint64(i)
			memDst[i] = 1
		}
	}
	b.Run("read", func(b *testing.B) {
		b.SetBytes(memBytes)
		var s uint64
		for b.Loop() {
			s ^= xorSum(memSrc)
		}
		_ = s
	})
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(2 * memBytes)
		for b.Loop() {
			copy(memDst, memSrc)
		}
	})
}
