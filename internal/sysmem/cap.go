package sysmem

import (
	"os"
	"runtime/debug"
)

// ParseCap reads a memory cap as the commands take it: "off" for none
// (known false), "" for the memory available to the process (Available:
// known when it can be read), or a size (ParseSize) whose Limit names
// source as where it comes from. The error is ParseSize's.
func ParseCap(s, source string) (lim Limit, known bool, err error) {
	switch s {
	case "off":
		return Limit{}, false, nil
	case "":
		lim, known = Available()
		return lim, known, nil
	}
	n, err := ParseSize(s)
	if err != nil {
		return Limit{}, false, err
	}
	return Limit{Bytes: n, Source: source}, true, nil
}

// Soften sets the Go runtime's soft memory limit to nine tenths of the
// cap, when there is one (Bytes > 0), and returns the function that
// restores the previous limit: the collector then works harder as the
// heap nears the cap, so that the cap stops live data, not uncollected
// garbage. Without a cap it changes nothing.
func (l Limit) Soften() (restore func()) {
	if l.Bytes <= 0 {
		return func() {}
	}
	prev := debug.SetMemoryLimit(l.Bytes / 10 * 9)
	return func() { debug.SetMemoryLimit(prev) }
}

// InferGC is the collector's GOGC while drumql infer runs (CollectOften):
// the evaluator's live data is a few large blocks without pointers, cheap
// to mark, so collecting at a quarter of growth costs little time, where
// the default (the heap growing to twice the live data) made the heap of
// the derived facts' write twice what it holds.
const InferGC = 25

// CollectOften sets the collector's GOGC to percent, unless the
// environment sets GOGC, and returns the function that restores the
// previous setting.
func CollectOften(percent int) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(prev) }
}
