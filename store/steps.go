package store

// stepHook, when not nil, is called by DB's multi-step writes at each of
// their steps (after what the step names is done). Only tests set it: a
// test process that kills itself there checks that a store reopened after
// any step is in the state before the write or after it.
var stepHook func(step string)

// step reports that a write reached the named step.
func (d *DB) step(name string) {
	if stepHook != nil {
		stepHook(name)
	}
}
