package mining

import (
	"context"
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
// to err and Trained returns nil. Otherwise it returns err.
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
	r.Stopped = err
	return nil
}
