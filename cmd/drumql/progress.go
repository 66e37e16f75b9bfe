package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// showProgress reports whether progress bars go to stderr: only on a
// terminal and without --quiet.
func (e *env) showProgress() bool {
	return !e.cli.Quiet && isTerminal(e.stderr)
}

// bar is a progress bar on stderr, or a no-op when progress is hidden.
type bar struct{ pb *progressbar.ProgressBar }

// newBar returns a bar of total steps (-1: unknown) described by desc.
func (e *env) newBar(total int, desc string) *bar {
	if !e.showProgress() {
		return &bar{}
	}
	return &bar{pb: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(e.stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionUseANSICodes(true),
	)}
}

func (b *bar) set(n int) {
	if b.pb != nil {
		_ = b.pb.Set(n)
	}
}

func (b *bar) describe(s string) {
	if b.pb != nil {
		b.pb.Describe(s)
	}
}

func (b *bar) finish() {
	if b.pb != nil {
		_ = b.pb.Finish()
	}
}
