package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/drumql/drumql/internal/pkgerr"
)

// DefaultExpire is how long a run's jobs, reports and objects stay on the
// server when Coordinator.Expire is 0: an abandoned run is not mined by a
// worker started days later, and its objects do not stay for ever.
const DefaultExpire = 72 * time.Hour

// RunInfo describes a run on the server.
type RunInfo struct {
	// ID is the run id.
	ID string
	// Created is when the run's job stream was created.
	Created time.Time
	// Groups is the number of head groups (0 if the plan is unreadable).
	Groups int
	// Done is the number of groups reported done.
	Done int
	// Queued is the number of jobs in the work queue (waiting or running).
	Queued int
}

// ListRuns returns the runs on the server of nc, sorted by id.
func ListRuns(ctx context.Context, nc *nats.Conn) ([]RunInfo, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, pkgerr.Newf("cluster: jetstream: %w", err)
	}
	l := js.ListStreams(ctx, jetstream.WithStreamListSubject("drumql.*.job.*"))
	var runs []RunInfo
	for si := range l.Info() {
		id, ok := strings.CutPrefix(si.Config.Name, "DRUMQL_")
		if !ok {
			continue
		}
		if id, ok = strings.CutSuffix(id, "_JOBS"); !ok || !runIDPattern.MatchString(id) {
			continue
		}
		r := RunInfo{ID: id, Created: si.Created, Queued: int(si.State.Msgs)}
		r.Groups, r.Done = runProgress(ctx, js, Names{Run: id})
		runs = append(runs, r)
	}
	if err := l.Err(); err != nil {
		return nil, pkgerr.Newf("cluster: list the runs: %w", jetStreamErr(err))
	}
	slices.SortFunc(runs, func(a, b RunInfo) int { return strings.Compare(a.ID, b.ID) })
	return runs, nil
}

// runProgress reads the number of groups of a run from its plan and the
// groups reported done from its status stream; what cannot be read counts
// as 0.
func runProgress(ctx context.Context, js jetstream.JetStream, names Names) (groups, done int) {
	if obs, err := js.ObjectStore(ctx, names.Bucket()); err == nil {
		if b, err := obs.GetBytes(ctx, runObject); err == nil {
			var spec runSpec
			if json.Unmarshal(b, &spec) == nil {
				groups = len(spec.Groups)
			}
		}
	}
	st, err := js.Stream(ctx, names.Status())
	if err != nil {
		return groups, 0
	}
	n := st.CachedInfo().State.Msgs
	if n == 0 {
		return groups, 0
	}
	cons, err := st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return groups, 0
	}
	seen := make(map[int]bool)
	for read := uint64(0); read < n; {
		batch, err := cons.FetchNoWait(int(min(n-read, 256)))
		if err != nil {
			break
		}
		got := 0
		for m := range batch.Messages() {
			got++
			var s Status
			if json.Unmarshal(m.Data(), &s) == nil && s.State == StateDone {
				seen[s.Group] = true
			}
		}
		if got == 0 {
			break
		}
		read += uint64(got)
	}
	return groups, len(seen)
}

// CancelRun removes the streams and the object store of run from the
// server of nc: workers stop taking its jobs, and its coordinator, if one
// waits, stops with ErrRunCancelled. A run with nothing on the server is
// ErrRunNotFound.
func CancelRun(ctx context.Context, nc *nats.Conn, run string) error {
	names, err := NewNames(run)
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return pkgerr.Newf("cluster: jetstream: %w", err)
	}
	found := false
	for _, s := range []string{names.Jobs(), names.Status()} {
		err := js.DeleteStream(ctx, s)
		switch {
		case err == nil:
			found = true
		case !errors.Is(err, jetstream.ErrStreamNotFound):
			return pkgerr.Newf("cluster: cancel run %s: remove stream %s: %w", run, s, jetStreamErr(err))
		}
	}
	err = js.DeleteObjectStore(ctx, names.Bucket())
	switch {
	case err == nil:
		found = true
	case !errors.Is(err, jetstream.ErrBucketNotFound) && !errors.Is(err, jetstream.ErrStreamNotFound):
		return pkgerr.Newf("cluster: cancel run %s: remove object store %s: %w", run, names.Bucket(), jetStreamErr(err))
	}
	if !found {
		return pkgerr.Newf("cluster: cancel run %s: %w", run, ErrRunNotFound)
	}
	return nil
}
