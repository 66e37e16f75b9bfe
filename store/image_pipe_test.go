package store

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestPipeWriterOrder: what the writing goroutine passes on is the bytes
// written, in order, whatever the sizes of the writes against the buffers'
// (none, a few bytes, several buffers at once).
func TestPipeWriterOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for _, size := range []int{1, 7, 64} {
		var got, want bytes.Buffer
		p := newPipeWriter(&got, size, 3)
		for range 200 {
			b := make([]byte, rng.IntN(3*size+2))
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			want.Write(b)
			if n, err := p.Write(b); n != len(b) || err != nil {
				t.Fatalf("buffers of %d: Write = %d, %v; want %d, nil", size, n, err, len(b))
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("buffers of %d: %d bytes passed on differ from the %d written", size, got.Len(), want.Len())
		}
	}
}

// failAfter accepts n writes, then fails every one.
type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(b []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	f.n--
	return len(b), nil
}

// TestPipeWriterError: the underlying writer's first error is Close's,
// and the writes after the goroutine met it return it too.
func TestPipeWriterError(t *testing.T) {
	full := errors.New("no space left on device")
	for _, ok := range []int{0, 1, 5} {
		p := newPipeWriter(&failAfter{n: ok, err: full}, 16, 2)
		var werr error
		for range 100 {
			if _, werr = p.Write(make([]byte, 16)); werr != nil {
				break
			}
		}
		if werr != nil && !errors.Is(werr, full) {
			t.Fatalf("after %d writes: Write returned %v, want %v", ok, werr, full)
		}
		if err := p.Close(); !errors.Is(err, full) {
			t.Fatalf("after %d writes: Close returned %v, want %v", ok, err, full)
		}
	}
}
