package mining

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/drumql/drumql/internal/report"
	"github.com/drumql/drumql/miner"
)

// Observe records the training progress report p in the run: the start of
// the rule step when a model is trained, the valid loss at the end of each
// epoch, and for each batch a point of the loss curve (Loss), the batch's
// own loss recovered from the epoch's running mean that p carries.
func (r *Run) Observe(p miner.Progress) {
	switch {
	case p.Trained:
		r.RulesStart = time.Now()
		return
	case p.EpochDone:
		r.ValidLoss = append(r.ValidLoss, p.ValidLoss)
		return
	}
	cur := p.Loss
	if p.Batch > 1 {
		cur = p.Loss*float64(p.Batch) - r.prevMean*float64(p.Batch-1)
	}
	r.prevMean = p.Loss
	r.Loss = append(r.Loss, report.LossPoint{Epoch: p.Epoch, Batch: p.Batch, Step: len(r.Loss) + 1, Loss: cur})
}

// Trained ends the training of the run, whose error was err (from
// miner.Mine or a cluster run), and starts the rule step's clock if no
// progress report did. When ctx was cancelled after some model was
// trained, the run keeps the rules of the current weights: Stopped is set
// to err and Trained returns nil; when the --time cap cut it (ctx from
// TrainingContext), Cut is set instead. Otherwise it returns err.
func (r *Run) Trained(ctx context.Context, err error) error {
	if r.RulesStart.IsZero() {
		r.RulesStart = time.Now()
	}
	if err == nil {
		return nil
	}
	if r.Result == nil || len(r.Result.Models) == 0 || ctx.Err() == nil {
		return err
	}
	if errors.Is(context.Cause(ctx), errTimeCap) {
		r.Cut = true
		return nil
	}
	r.Stopped = err
	return nil
}

// errTimeCap is the cause of a training context whose --time cap passed.
var errTimeCap = errors.New("the --time cap passed")

// TrainingContext returns the context training runs under: ctx, cut when d
// (> 0; 0 means no cap) has passed since the run started. Training cut by
// the cap ends as an interrupted one does (the rules of the weights at that
// moment, Trained), and the file's header says the cap cut it.
func (r *Run) TrainingContext(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	r.TimeCap = d
	start := r.Start
	if start.IsZero() {
		start = time.Now()
	}
	return context.WithDeadlineCause(ctx, start.Add(d), errTimeCap)
}

// CutLine is the header line of a run whose training the --time cap cut,
// or "" when it did not cut it.
func (r *Run) CutLine() string {
	if !r.Cut {
		return ""
	}
	return fmt.Sprintf("training cut by --time %s after %d epochs: these are the rules of the weights then", r.TimeCap, len(r.History()))
}
