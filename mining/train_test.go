package mining

import (
	"context"
	"errors"
	"testing"

	"github.com/drumql/drumql/miner"
)

func TestObserve(t *testing.T) {
	r := &Run{}
	// An epoch's running mean 2, then 3 after the second batch: the
	// second batch's own loss is 2*3 - 2 = 4.
	r.Observe(miner.Progress{Epoch: 1, Batch: 1, Loss: 2})
	r.Observe(miner.Progress{Epoch: 1, Batch: 2, Loss: 3})
	r.Observe(miner.Progress{Epoch: 1, EpochDone: true, ValidLoss: 0.5})
	r.Observe(miner.Progress{Epoch: 2, Batch: 1, Loss: 1})
	if len(r.Loss) != 3 {
		t.Fatalf("%d loss points, want 3", len(r.Loss))
	}
	for i, want := range []float64{2, 4, 1} {
		if p := r.Loss[i]; p.Loss != want || p.Step != i+1 {
			t.Errorf("loss point %d = %+v, want loss %g at step %d", i, p, want, i+1)
		}
	}
	if len(r.ValidLoss) != 1 || r.ValidLoss[0] != 0.5 {
		t.Errorf("valid loss = %v, want [0.5]", r.ValidLoss)
	}
	if !r.RulesStart.IsZero() {
		t.Error("the rule step started before a model was trained")
	}
	r.Observe(miner.Progress{Trained: true})
	if r.RulesStart.IsZero() {
		t.Error("the rule step did not start when the model was trained")
	}
}

func TestTrained(t *testing.T) {
	stop := errors.New("stopped")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	trained := &miner.Result{Models: []*miner.Model{nil}}
	for _, tt := range []struct {
		name    string
		ctx     context.Context
		result  *miner.Result
		err     error
		want    error
		stopped bool
	}{
		{"done", context.Background(), trained, nil, nil, false},
		{"failed", context.Background(), trained, stop, stop, false},
		{"interrupted with a model", cancelled, trained, stop, nil, true},
		{"interrupted before any model", cancelled, &miner.Result{}, stop, stop, false},
		{"interrupted with no result", cancelled, nil, stop, stop, false},
	} {
		r := &Run{Result: tt.result}
		if err := r.Trained(tt.ctx, tt.err); err != tt.want {
			t.Errorf("%s: Trained = %v, want %v", tt.name, err, tt.want)
		}
		if (r.Stopped != nil) != tt.stopped {
			t.Errorf("%s: Stopped = %v, want set %v", tt.name, r.Stopped, tt.stopped)
		}
		if r.RulesStart.IsZero() {
			t.Errorf("%s: the rule step's clock did not start", tt.name)
		}
	}
}
