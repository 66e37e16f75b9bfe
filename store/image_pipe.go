package store

import (
	"io"
	"sync/atomic"
)

// pipeWriter is a buffered writer whose full buffers another goroutine
// writes, so that the image's encoding (which walks the materialisation)
// runs while the previous buffer goes to the file: the write calls were
// a third of the image write of the pinned FB15k-237 file's heaviest
// update, serial with the walk before. Writes reach w in order. The first
// error of w sticks: the later writes return it, and so does Close.
type pipeWriter struct {
	w      io.Writer
	cur    []byte
	full   chan []byte
	free   chan []byte
	done   chan struct{}
	failed atomic.Pointer[error] // w's first error
}

// newPipeWriter returns a pipeWriter of bufs buffers of size bytes (bufs
// at least 2) writing to w.
func newPipeWriter(w io.Writer, size, bufs int) *pipeWriter {
	p := &pipeWriter{w: w, cur: make([]byte, 0, size),
		full: make(chan []byte, bufs), free: make(chan []byte, bufs), done: make(chan struct{})}
	for range bufs - 1 {
		p.free <- make([]byte, 0, size)
	}
	go p.run()
	return p
}

// run writes the full buffers to w until full is closed.
func (p *pipeWriter) run() {
	defer close(p.done)
	for b := range p.full {
		if p.failed.Load() == nil {
			if _, err := p.w.Write(b); err != nil {
				p.failed.Store(&err)
			}
		}
		p.free <- b[:0]
	}
}

// Write copies b into the buffers, handing each full one to the writing
// goroutine.
func (p *pipeWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		if e := p.failed.Load(); e != nil {
			return n, *e
		}
		k := copy(p.cur[len(p.cur):cap(p.cur)], b)
		p.cur = p.cur[:len(p.cur)+k]
		b, n = b[k:], n+k
		if len(p.cur) == cap(p.cur) {
			p.full <- p.cur
			p.cur = <-p.free
		}
	}
	return n, nil
}

// Close hands over the last buffer, waits for every write to end and
// returns w's first error. The writer is not used after it.
func (p *pipeWriter) Close() error {
	if len(p.cur) > 0 {
		p.full <- p.cur
	}
	close(p.full)
	<-p.done
	if e := p.failed.Load(); e != nil {
		return *e
	}
	return nil
}
