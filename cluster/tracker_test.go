package cluster

import (
	"errors"
	"strings"
	"testing"
)

// TestTrackerApply plays status sequences of one or two groups into a
// tracker of 4 attempts and checks the state, the kept result, the counts
// and which status, if any, is an error.
func TestTrackerApply(t *testing.T) {
	done := func(group, attempt int, sum, worker string) Status {
		return Status{Group: group, State: StateDone, Attempt: attempt, Worker: worker, ModelSHA256: sum, RulesSHA256: sum}
	}
	st := func(group int, state string, attempt int) Status {
		return Status{Group: group, State: state, Attempt: attempt, Worker: "w", Error: "boom"}
	}
	tests := []struct {
		name     string
		statuses []Status
		errAt    int    // index of the status whose apply is an error; -1 for none
		errText  string // part of that error
		state    []string
		final    string // group 1's kept ModelSHA256
		worker   string // group 1's kept worker
		failures int    // group 1's
		counts   Counts
	}{
		{name: "done once",
			statuses: []Status{st(1, StateRunning, 1), done(1, 1, "a", "w1")},
			errAt:    -1, state: []string{StateDone, "queued"}, final: "a", worker: "w1",
			counts: Counts{Groups: 2, Queued: 1, Done: 1}},
		{name: "duplicate done: the first status is kept and counted once",
			statuses: []Status{st(1, StateRunning, 1), done(1, 1, "a", "w1"), st(1, StateRunning, 2), done(1, 2, "b", "w2")},
			errAt:    -1, state: []string{StateDone, "queued"}, final: "a", worker: "w1",
			counts: Counts{Groups: 2, Queued: 1, Done: 1}},
		{name: "failure after done is ignored, even on the last attempt",
			statuses: []Status{done(1, 1, "a", "w1"), st(1, StateRunning, 4), st(1, StateFailed, 4), st(1, StateRefused, 4)},
			errAt:    -1, state: []string{StateDone, "queued"}, final: "a", worker: "w1",
			counts: Counts{Groups: 2, Queued: 1, Done: 1}},
		{name: "release after done is ignored",
			statuses: []Status{done(1, 1, "a", "w1"), st(1, StateRelease, 2)},
			errAt:    -1, state: []string{StateDone, "queued"}, final: "a", worker: "w1",
			counts: Counts{Groups: 2, Queued: 1, Done: 1}},
		{name: "running read after done (out of order) does not undo it",
			statuses: []Status{done(1, 1, "a", "w1"), st(1, StateRunning, 1)},
			errAt:    -1, state: []string{StateDone, "queued"}, final: "a", worker: "w1",
			counts: Counts{Groups: 2, Queued: 1, Done: 1}},
		{name: "failures before done are counted, then done",
			statuses: []Status{st(1, StateRunning, 1), st(1, StateFailed, 1), st(1, StateRunning, 2), st(1, StateRefused, 2),
				st(1, StateRunning, 3), done(1, 3, "c", "w3")},
			errAt: -1, state: []string{StateDone, "queued"}, final: "c", worker: "w3", failures: 2,
			counts: Counts{Groups: 2, Queued: 1, Done: 1}},
		{name: "groups interleaved",
			statuses: []Status{st(2, StateRunning, 1), st(1, StateRunning, 1), done(2, 1, "x", "w2"), st(1, StateFailed, 1)},
			errAt:    -1, state: []string{"queued", StateDone}, failures: 1,
			counts: Counts{Groups: 2, Queued: 1, Done: 1}},
		{name: "a release puts the job back in the queue",
			statuses: []Status{st(1, StateRunning, 1), st(1, StateRelease, 1)},
			errAt:    -1, state: []string{"queued", "queued"},
			counts: Counts{Groups: 2, Queued: 2}},
		{name: "a failure before the last attempt is not an error",
			statuses: []Status{st(1, StateRunning, 3), st(1, StateFailed, 3)},
			errAt:    -1, state: []string{"queued", "queued"}, failures: 1,
			counts: Counts{Groups: 2, Queued: 2}},
		{name: "a failure on the last attempt is an error",
			statuses: []Status{st(1, StateRunning, 4), st(1, StateFailed, 4)},
			errAt:    1, errText: "group 1 failed on attempt 4 of 4", state: []string{"queued", "queued"}, failures: 1,
			counts: Counts{Groups: 2, Queued: 2}},
		{name: "a refusal on the last attempt is an error",
			statuses: []Status{st(1, StateRefused, 4)},
			errAt:    0, errText: "group 1 was refused on attempt 4 of 4", state: []string{"queued", "queued"}, failures: 1,
			counts: Counts{Groups: 2, Queued: 2}},
		{name: "an attempt past the last is an error",
			statuses: []Status{st(1, StateFailed, 5)},
			errAt:    0, errText: "attempt 5 of 4", state: []string{"queued", "queued"}, failures: 1,
			counts: Counts{Groups: 2, Queued: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTracker(2, 4)
			tr.queued(1)
			tr.queued(2)
			for k, s := range tc.statuses {
				err := tr.apply(s)
				if k != tc.errAt {
					if err != nil {
						t.Fatalf("status %d (%+v): unexpected error %v", k, s, err)
					}
					continue
				}
				if !errors.Is(err, ErrJobFailed) || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("status %d (%+v): error %v, want ErrJobFailed with %q", k, s, err, tc.errText)
				}
			}
			for g, want := range tc.state {
				if tr.state[g] != want {
					t.Errorf("group %d: state %q, want %q", g+1, tr.state[g], want)
				}
				if tr.isDone(g+1) != (want == StateDone) {
					t.Errorf("group %d: isDone %v, state %q", g+1, tr.isDone(g+1), want)
				}
			}
			if f := tr.final[0]; f.ModelSHA256 != tc.final || f.RulesSHA256 != tc.final || f.Worker != tc.worker {
				t.Errorf("group 1 keeps %s from %q, want %s from %q", f.ModelSHA256, f.Worker, tc.final, tc.worker)
			}
			if tr.failures[0] != tc.failures {
				t.Errorf("group 1: %d failures, want %d", tr.failures[0], tc.failures)
			}
			if c := tr.counts(); c != tc.counts {
				t.Errorf("counts %+v, want %+v", c, tc.counts)
			}
			if tr.done != tc.counts.Done {
				t.Errorf("done %d, want %d", tr.done, tc.counts.Done)
			}
		})
	}
}

func TestTrackerLastError(t *testing.T) {
	tr := newTracker(1, 4)
	if got := tr.lastError(); !strings.Contains(got, "no worker reported an error") {
		t.Errorf("lastError with no failure: %q", got)
	}
	if err := tr.apply(Status{Group: 1, State: StateFailed, Attempt: 2, Worker: "w9", Error: "out of memory"}); err != nil {
		t.Fatal(err)
	}
	if got, want := tr.lastError(), "the last error: group 1, attempt 2 on w9: out of memory"; got != want {
		t.Errorf("lastError %q, want %q", got, want)
	}
}
