package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/drumql/drumql/reasoner/internal/testkit"
)

// TestCandidatesPerFact bounds the candidate facts a round buffers for
// merging by the facts it derives, not the derivations: in a layered graph
// every pair (a_i, c_j) is reached through each of the m middle nodes, so
// h(X, Y) :- e(X, Z), f(Z, Y) derives each of its n*n facts m times. The
// buffers keep one candidate per fact and task (the first step's n*m tuples
// make at most two tasks here), where keeping each derivation buffered n*n*m.
func TestCandidatesPerFact(t *testing.T) {
	const n, m = 40, 30
	var b strings.Builder
	for i := range n {
		for z := range m {
			fmt.Fprintf(&b, "a%d\te\tb%d\n", i, z)
			fmt.Fprintf(&b, "b%d\tf\tc%d\n", z, i)
		}
	}
	p := testkit.MustParse(t, "0.5 :: h(X, Y) :- e(X, Z), f(Z, Y).\n0.9 :: h(X, Y) :- f(Y, X).\n")
	for _, threads := range []int{1, 2, 8} {
		w := &WorkCounters{}
		st, err := Infer(context.Background(), testkit.NewStore(t, b.String()), p, Options{Threads: threads, Work: w})
		if err != nil {
			t.Fatal(err)
		}
		if st.Derived["h"] != n*n+n*m {
			t.Fatalf("threads %d: derived %d h facts, want %d", threads, st.Derived["h"], n*n+n*m)
		}
		// per thread at most one task of the first rule's, plus the
		// second rule's n*m candidates
		if got, bound := w.InferCands.Load(), int64(2*n*n+n*m); got > bound {
			t.Errorf("threads %d: %d candidates merged for %d facts (%d derivations), want at most %d",
				threads, got, n*n+n*m, n*n*m+n*m, bound)
		}
	}
}

// bufBytes is the memory the records of b take: its columns and slots,
// by length (capacity beyond is append's slack, not the layout's).
func bufBytes(b *outBuf) int {
	return 4*len(b.words) + 8*len(b.conf) + 4*len(b.offs) + 8*len(b.slots)
}

// TestOutBufBytesPerCandidate bounds the bytes a candidate buffer holds
// per distinct binary candidate of a crisp rule: its four words, an
// offset and a slot at a load of at most 3/4, no confidence (34 bytes for
// 150,000 candidates, whose slots are 262,144). With a confidence column,
// slots at a load of at most 1/2 and a list of the occupied ones, the same
// candidates took 60. A candidate at another confidence than 1 brings the
// column, and every record keeps its confidence.
func TestOutBufBytesPerCandidate(t *testing.T) {
	const n = 150000
	e := &Evaluator{}
	var b outBuf
	for i := range n {
		b.put(e, 3, 0, []uint32{uint32(i), uint32(i / 7)}, nil, 1)
		b.put(e, 3, 0, []uint32{uint32(i), uint32(i / 7)}, nil, 1) // the same fact again
	}
	if b.len() != n {
		t.Fatalf("%d records for %d distinct candidates", b.len(), n)
	}
	if per := float64(bufBytes(&b)) / n; per > 40 {
		t.Errorf("%.1f bytes a crisp candidate, want at most 40", per)
	}
	b.put(e, 3, 1, []uint32{7, 1}, nil, 0.5) // buffered at 1: dropped
	b.put(e, 3, 1, []uint32{n, 0}, nil, 0.5)
	b.put(e, 3, 1, []uint32{n, 0}, nil, 0.75)
	if b.len() != n+1 || b.confAt(7) != 1 || b.confAt(n) != 0.75 || b.ruleOf(n) != 1 {
		t.Fatalf("after a weighted candidate: %d records, confidences %v and %v", b.len(), b.confAt(7), b.confAt(n))
	}
	b.reset() // a round as large: the slots stay
	b.put(e, 3, 0, []uint32{1, 2}, nil, 1)
	b.put(e, 3, 0, []uint32{1, 2}, nil, 0.5)
	if b.len() != 1 || b.confAt(0) != 1 || len(b.slots) != 262144 {
		t.Fatalf("after reset: %d records (want 1) of confidence %v, %d slots", b.len(), b.confAt(0), len(b.slots))
	}
	b.reset() // after a small round, the slots go
	b.put(e, 3, 0, []uint32{1, 2}, nil, 1)
	if b.len() != 1 || len(b.slots) > 64 {
		t.Fatalf("after a small round: %d records (want 1), %d slots", b.len(), len(b.slots))
	}
}

// TestOutBufPlain checks when a buffer stops looking its candidates up:
// after plainAfter crisp candidates nearly all distinct, and then its
// slots stop growing (those of plainAfter records); not while one
// candidate in 32 repeats, nor when confidences are not all 1; and reset
// makes it look up again.
func TestOutBufPlain(t *testing.T) {
	e := &Evaluator{}
	const n = 50000
	var b outBuf
	for i := range n {
		b.put(e, 3, 0, []uint32{uint32(i), 1}, nil, 1)
	}
	b.put(e, 3, 0, []uint32{7, 1}, nil, 1)
	if !b.plain || b.len() != n+1 || len(b.slots) > 2*plainAfter {
		t.Errorf("distinct candidates: plain %v, %d records for %d puts, %d slots (want at most %d)", b.plain, b.len(), n+1, len(b.slots), 2*plainAfter)
	}
	b.reset()
	if b.plain {
		t.Fatal("plain after reset")
	}
	for i := range n {
		k := i
		if i%32 == 31 {
			k-- // the candidate before, again
		}
		b.put(e, 3, 0, []uint32{uint32(k), 1}, nil, 1)
	}
	if want := n - n/32; b.plain || b.len() != want {
		t.Errorf("one repeat in 32: plain %v, %d records, want %d", b.plain, b.len(), want)
	}
	b.reset()
	for i := range n {
		b.put(e, 3, 0, []uint32{uint32(i), 1}, nil, 0.5)
	}
	if b.plain {
		t.Error("weighted candidates: plain")
	}
}

// TestOutBufUniform checks the records of a task's buffer: 8 bytes a
// distinct crisp binary candidate once plain (no relation, rule or offset
// a record while every record has the same), then, once a record of
// another relation, rule or length comes, every record decoded as it was
// put.
func TestOutBufUniform(t *testing.T) {
	e := &Evaluator{Rels: []*Relation{NewRelation("a", 2), NewRelation("b", 3)}}
	const n = 200000
	var b outBuf
	for i := range n {
		b.put(e, 0, 5, []uint32{uint32(i), uint32(i / 3)}, nil, 1)
	}
	if per := float64(4*len(b.words)+4*len(b.offs)) / n; !b.plain || b.mixed || per > 8 {
		t.Errorf("distinct crisp candidates: plain %v, mixed %v, %.1f bytes a record, want 8", b.plain, b.mixed, per)
	}
	b.put(e, 1, 6, []uint32{1, 2, 3}, nil, 1)
	b.put(e, 0, 7, []uint32{4, 5}, nil, 1)
	if !b.mixed || b.len() != n+2 {
		t.Fatalf("mixed %v, %d records, want %d", b.mixed, b.len(), n+2)
	}
	pos := 0
	for k := range b.len() {
		var ri int32
		var rule uint32
		var tu []uint32
		ri, rule, tu, _, pos = e.record(&b, pos)
		want, wri, wrule := []uint32{uint32(k), uint32(k / 3)}, int32(0), uint32(5)
		switch k {
		case n:
			want, wri, wrule = []uint32{1, 2, 3}, 1, 6
		case n + 1:
			want, wri, wrule = []uint32{4, 5}, 0, 7
		}
		if ri != wri || rule != wrule || !slices.Equal(tu, want) {
			t.Fatalf("record %d: relation %d, rule %d, tuple %v; want %d, %d, %v", k, ri, rule, tu, wri, wrule, want)
		}
	}
}
