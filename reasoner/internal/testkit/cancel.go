package testkit

import (
	"context"
	"sync/atomic"
)

// CancelAfter is a context that cancels itself on the n-th call of Err:
// a cancellation in the middle of an evaluation, at a point that depends
// only on the evaluation (with one thread), never on the clock.
type CancelAfter struct {
	context.Context
	n      atomic.Int64
	cancel context.CancelFunc
}

// NewCancelAfter returns a context that cancels itself on the n-th call of
// its Err.
func NewCancelAfter(n int64) *CancelAfter {
	ctx, cancel := context.WithCancel(context.Background())
	c := &CancelAfter{Context: ctx, cancel: cancel}
	c.n.Store(n)
	return c
}

// Err counts the call and cancels the context on the n-th; it returns the
// context's error.
func (c *CancelAfter) Err() error {
	if c.n.Add(-1) <= 0 {
		c.cancel()
	}
	return c.Context.Err()
}
