package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/miner"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Plan is what a coordinator mines: the snapshot file's bytes, the mining
// options and the head groups. Every group is mined with the options, its
// heads as Config.Heads.
type Plan struct {
	Snapshot []byte
	Options  miner.Options
	Groups   []miner.Group
}

// Result is the result of one group: its model file and its rules.
type Result struct {
	Group  int // from 1
	Model  []byte
	Rules  []miner.MinedRule
	Worker string
}

// Counts are the jobs of a run by state, for progress.
type Counts struct {
	Groups, Queued, Running, Done int
}

// Coordinator runs the groups of a Plan on the workers of a NATS JetStream
// server. The zero value of every field but Conn, Run and Version means its
// default.
type Coordinator struct {
	// Conn is the connection to the server.
	Conn *nats.Conn
	// Run is the run id (see Names).
	Run string
	// Version is the drumql version the workers must run.
	Version string
	// Keep keeps the run's streams and objects when it ends.
	Keep bool
	// AckWait is how long a job may go without a heartbeat before it is
	// delivered to another worker. Default 30s.
	AckWait time.Duration
	// MaxAttempts is how many times a job is delivered: when it has failed
	// (or been refused) that many times, the run stops. Default 4.
	MaxAttempts int
	// Replicas is the number of servers that keep each stream. Default 1.
	Replicas int
	// Progress, if set, is called when the counts change.
	Progress func(Counts)
	// Logf, if set, is told what happens (resumption, failures).
	Logf func(format string, args ...any)
	// IdleWarn is how long the jobs may wait with none running before Logf
	// is told that no worker has taken a job, and again every IdleWarn
	// while it stays so. Default 10s.
	IdleWarn time.Duration
	// Expire is how long the run's jobs, reports and objects stay on the
	// server (JetStream's MaxAge and the object store's TTL): a run
	// abandoned longer is not mined by a worker started later. Default
	// DefaultExpire.
	Expire time.Duration
	// Lost, if set, is closed by the caller when the connection is closed
	// for good (see ConnOptions.Closed): the run then stops with
	// ErrConnectionLost.
	Lost <-chan struct{}
}

// runSpec is the run.json object: what must match when a run resumes.
type runSpec struct {
	Version  string        `json:"version"`
	Snapshot string        `json:"snapshot"`
	Options  miner.Options `json:"options"`
	Groups   []miner.Group `json:"groups"`
}

func (c *Coordinator) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}

// Mine enqueues the jobs of plan that are neither done nor queued (all of
// them for a new run), waits for the workers and returns the results in
// group order. It stops with an error wrapping ErrJobFailed when a job has
// failed MaxAttempts times, ErrConnectionLost when the connection is lost,
// ErrRunCancelled when the run is removed from the server meanwhile, or
// ctx's error. While jobs wait and none runs, Logf is told so every
// IdleWarn. Unless Keep, the run's streams and objects are removed
// when all groups are done or a job failed; after an interruption or a lost
// connection they stay, so that a coordinator started again with the same
// run id resumes the run.
func (c *Coordinator) Mine(ctx context.Context, plan Plan) ([]Result, error) {
	names, err := NewNames(c.Run)
	if err != nil {
		return nil, err
	}
	ackWait, attempts, replicas, idleWarn, expire := c.settings()
	js, err := jetstream.New(c.Conn)
	if err != nil {
		return nil, pkgerr.Newf("cluster: jetstream: %w", err)
	}
	sum := SHA256(plan.Snapshot)
	spec, err := json.Marshal(runSpec{Version: c.Version, Snapshot: sum, Options: plan.Options, Groups: plan.Groups})
	if err != nil {
		return nil, pkgerr.Newf("cluster: run %s: %w", c.Run, err)
	}
	obs, err := c.openRun(ctx, js, names, plan.Snapshot, sum, spec, replicas, expire)
	if err != nil {
		return nil, err
	}
	jobs, err := c.createStreams(ctx, js, names, ackWait, attempts, replicas, expire)
	if err != nil {
		return nil, err
	}
	// Jobs still queued (or being worked on) are in the work queue; read
	// them before the status stream, so that a job acknowledged meanwhile
	// is seen done rather than missing.
	info, err := jobs.Info(ctx, jetstream.WithSubjectFilter(names.JobSubjects()))
	if err != nil {
		return nil, pkgerr.Newf("cluster: run %s: stream info: %w", c.Run, err)
	}
	exhausted, adv, err := c.watchExhausted(names)
	if err != nil {
		return nil, err
	}
	defer adv.Unsubscribe()
	reports, drained, stopStatus, err := c.readStatus(ctx, js, names)
	if err != nil {
		return nil, err
	}
	defer stopStatus()
	wt := &runWait{c: c, js: js, names: names, plan: plan, sum: sum, queued: info.State.Subjects,
		attempts: attempts, idleWarn: idleWarn, tr: newTracker(len(plan.Groups), attempts), drained: drained}
	if err := wt.wait(ctx, reports, exhausted); err != nil {
		return nil, err
	}
	results, err := c.results(ctx, obs, len(plan.Groups), wt.tr)
	if err != nil {
		return nil, err
	}
	if !c.Keep {
		c.cleanup(ctx, js, names)
	}
	return results, nil
}

// createStreams creates (or updates) the run's job stream, a work queue,
// its consumer, and the status stream the workers report to; it returns
// the job stream.
func (c *Coordinator) createStreams(ctx context.Context, js jetstream.JetStream, names Names, ackWait time.Duration, attempts, replicas int, expire time.Duration) (jetstream.Stream, error) {
	jobs, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: names.Jobs(), Subjects: []string{names.JobSubjects()},
		Retention: jetstream.WorkQueuePolicy, Replicas: replicas, MaxAge: expire, Description: "drumql run " + c.Run + ": one job per head group"})
	if err != nil {
		return nil, pkgerr.Newf("cluster: run %s: create stream %s: %w", c.Run, names.Jobs(), err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: names.Status(), Subjects: []string{names.StatusSubject()},
		Replicas: replicas, MaxAge: expire, Description: "drumql run " + c.Run + ": what the workers report"}); err != nil {
		return nil, pkgerr.Newf("cluster: run %s: create stream %s: %w", c.Run, names.Status(), err)
	}
	if _, err := js.CreateOrUpdateConsumer(ctx, names.Jobs(), jetstream.ConsumerConfig{Durable: ConsumerName,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: attempts}); err != nil {
		return nil, pkgerr.Newf("cluster: run %s: create consumer: %w", c.Run, err)
	}
	return jobs, nil
}

// statusReport is a message of the status stream and how many messages
// follow it in the stream.
type statusReport struct {
	data    []byte
	pending uint64
}

// readStatus consumes the status stream from its start, sending its
// messages to reports; drained says whether the stream is empty. The
// caller calls stop when it reads reports no more: stop ends the
// consumer, and a message waiting to be sent to reports is dropped
// rather than blocking the consumer's goroutine for ever.
func (c *Coordinator) readStatus(ctx context.Context, js jetstream.JetStream, names Names) (reports <-chan statusReport, drained bool, stop func(), err error) {
	sinfo, err := js.Stream(ctx, names.Status())
	if err != nil {
		return nil, false, nil, pkgerr.Newf("cluster: run %s: status stream: %w", c.Run, err)
	}
	drained = sinfo.CachedInfo().State.Msgs == 0
	status, err := js.OrderedConsumer(ctx, names.Status(), jetstream.OrderedConsumerConfig{})
	if err != nil {
		return nil, false, nil, pkgerr.Newf("cluster: run %s: read status: %w", c.Run, err)
	}
	ch := make(chan statusReport, 256)
	done := make(chan struct{})
	cc, err := status.Consume(func(m jetstream.Msg) {
		r := statusReport{data: m.Data()}
		if md, err := m.Metadata(); err == nil {
			r.pending = md.NumPending
		}
		select {
		case ch <- r:
		case <-done:
		}
	})
	if err != nil {
		return nil, false, nil, pkgerr.Newf("cluster: run %s: read status: %w", c.Run, err)
	}
	stop = func() {
		close(done)
		cc.Stop()
	}
	return ch, drained, stop, nil
}

// runWait is the state of Mine while it waits for the workers: the jobs
// it enqueues once the status stream is read, the counts last shown and
// the warnings given about idle jobs.
type runWait struct {
	c        *Coordinator
	js       jetstream.JetStream
	names    Names
	plan     Plan
	sum      string
	queued   map[string]uint64 // the work queue's messages per subject
	attempts int
	idleWarn time.Duration
	tr       *tracker

	drained   bool // the status stream has been read to its end
	enqueued  bool
	shown     Counts
	idleSince time.Time // since when jobs wait with none running
	warned    int       // warnings given since then
	ticks     int
}

// wait follows the status reports until every group is done, enqueueing
// the jobs once the status stream has been read to its end. It returns
// an error when a job cannot be enqueued or failed for good, the
// connection is lost, the run is removed from the server or ctx is done.
func (wt *runWait) wait(ctx context.Context, reports <-chan statusReport, exhausted <-chan uint64) error {
	c, tr := wt.c, wt.tr
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if wt.drained && !wt.enqueued {
			// The status stream has been read to its end: enqueue what is
			// neither done nor queued.
			wt.enqueued = true
			if err := c.enqueue(ctx, wt.js, wt.names, wt.plan, wt.sum, tr, wt.queued); err != nil {
				return err
			}
		}
		if wt.enqueued && c.Progress != nil && tr.counts() != wt.shown {
			wt.shown = tr.counts()
			c.Progress(wt.shown)
		}
		if wt.enqueued && tr.done == len(wt.plan.Groups) {
			return nil
		}
		select {
		case r := <-reports:
			if err := wt.report(ctx, r); err != nil {
				return err
			}
		case seq := <-exhausted:
			c.cleanup(ctx, wt.js, wt.names)
			return pkgerr.Newf("cluster: run %s: the job of stream sequence %d was delivered %d times and never finished (%s): %w",
				c.Run, seq, wt.attempts, tr.lastError(), ErrJobFailed)
		case <-ctx.Done():
			return pkgerr.Newf("cluster: run %s: %w", c.Run, ctx.Err())
		case <-tick.C:
			if err := wt.tick(ctx); err != nil {
				return err
			}
		}
	}
}

// report applies a status message to the tracker; a malformed one is
// logged and ignored, a job failed for good ends the run.
func (wt *runWait) report(ctx context.Context, r statusReport) error {
	c := wt.c
	if r.pending == 0 {
		wt.drained = true
	}
	var s Status
	if err := json.Unmarshal(r.data, &s); err != nil || s.Group < 1 || s.Group > len(wt.plan.Groups) {
		c.logf("ignored a malformed status message: %q", r.data)
		return nil
	}
	if err := wt.tr.apply(s); err != nil {
		c.cleanup(ctx, wt.js, wt.names)
		return pkgerr.Newf("cluster: run %s: %w", c.Run, err)
	}
	return nil
}

// tick checks, every 250ms, that the connection is still there, every
// fourth time that the run still is, and warns when jobs have waited
// IdleWarn with none running.
func (wt *runWait) tick(ctx context.Context) error {
	c := wt.c
	if lost := c.lost(); lost != nil {
		return lost
	}
	wt.ticks++
	if wt.ticks%4 == 0 {
		if _, err := wt.js.Stream(ctx, wt.names.Jobs()); errors.Is(err, jetstream.ErrStreamNotFound) {
			return pkgerr.Newf("cluster: run %s: %w", c.Run, ErrRunCancelled)
		}
	}
	if n := wt.tr.counts(); !wt.enqueued || n.Running > 0 || n.Queued == 0 {
		wt.idleSince, wt.warned = time.Time{}, 0
	} else if wt.idleSince.IsZero() {
		wt.idleSince = time.Now()
	} else if waited := time.Since(wt.idleSince); waited >= time.Duration(wt.warned+1)*wt.idleWarn {
		wt.warned++
		c.logf("no worker has taken a job for %s (%d of %d groups waiting): start workers with 'drumql worker --cluster URL'",
			waited.Round(time.Second), n.Queued, n.Groups)
	}
	return nil
}

// openRun opens the run's object store (creating it, or checking that an
// existing run has the same spec, which resumes it), and stores the
// snapshot, once, and the run's spec.
func (c *Coordinator) openRun(ctx context.Context, js jetstream.JetStream, names Names, snapshot []byte, sum string, spec []byte, replicas int, expire time.Duration) (jetstream.ObjectStore, error) {
	obs, err := js.ObjectStore(ctx, names.Bucket())
	created := errors.Is(err, jetstream.ErrBucketNotFound)
	switch {
	case created:
		obs, err = js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: names.Bucket(), Replicas: replicas, TTL: expire,
			Description: "drumql run " + c.Run + ": snapshot, plan and results"})
		if err != nil {
			return nil, pkgerr.Newf("cluster: run %s: create object store %s: %w", c.Run, names.Bucket(), err)
		}
	case err != nil:
		return nil, pkgerr.Newf("cluster: run %s: object store %s: %w", c.Run, names.Bucket(), jetStreamErr(err))
	}
	if obs, err = consistentReads(ctx, js, obs, names.Bucket()); err != nil {
		return nil, pkgerr.Newf("cluster: run %s: object store %s: %w", c.Run, names.Bucket(), err)
	}
	if !created {
		old, err := obs.GetBytes(ctx, runObject)
		if err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			return nil, pkgerr.Newf("cluster: run %s: read %s: %w", c.Run, runObject, err)
		}
		if err == nil && !bytes.Equal(old, spec) {
			return nil, pkgerr.Newf("cluster: run %s was started with other settings, head groups, graph or drumql version: %w", c.Run, ErrRunMismatch)
		}
		c.logf("run %s exists: resuming it", c.Run)
	}
	if _, err := obs.GetInfo(ctx, SnapshotObject(sum)); errors.Is(err, jetstream.ErrObjectNotFound) {
		if _, err := obs.PutBytes(ctx, SnapshotObject(sum), snapshot); err != nil {
			return nil, pkgerr.Newf("cluster: run %s: upload the snapshot: %w", c.Run, err)
		}
	} else if err != nil {
		return nil, pkgerr.Newf("cluster: run %s: snapshot object: %w", c.Run, err)
	}
	if _, err := obs.PutBytes(ctx, runObject, spec); err != nil {
		return nil, pkgerr.Newf("cluster: run %s: store %s: %w", c.Run, runObject, err)
	}
	return obs, nil
}

// enqueue publishes the job of every group that is neither done nor queued
// (queued: the work queue's messages per subject) and announces the run.
func (c *Coordinator) enqueue(ctx context.Context, js jetstream.JetStream, names Names, plan Plan, sum string, tr *tracker, queued map[string]uint64) error {
	for k, g := range plan.Groups {
		group := k + 1
		tr.queued(group)
		if tr.isDone(group) || queued[names.JobSubject(group)] > 0 {
			continue
		}
		job, err := json.Marshal(Job{Run: c.Run, Group: group, Groups: len(plan.Groups), Heads: g.Heads,
			Options: plan.Options, Snapshot: sum, Version: c.Version})
		if err != nil {
			return err
		}
		if _, err := js.Publish(ctx, names.JobSubject(group), job, jetstream.WithMsgID(c.Run+"-"+fmt.Sprint(group))); err != nil {
			return pkgerr.Newf("cluster: run %s: enqueue group %d: %w", c.Run, group, err)
		}
	}
	if err := c.Conn.Publish(AnnounceSubject, []byte(c.Run)); err != nil {
		c.logf("announce the run: %v", err)
	}
	return nil
}

// results reads every group's model and rules from the object store and
// checks them against the checksums its worker reported.
func (c *Coordinator) results(ctx context.Context, obs jetstream.ObjectStore, groups int, tr *tracker) ([]Result, error) {
	results := make([]Result, groups)
	for k := range groups {
		group := k + 1
		s := tr.final[group-1]
		model, err := obs.GetBytes(ctx, ModelObject(group))
		if err != nil {
			return nil, pkgerr.Newf("cluster: run %s: group %d: read the model: %w", c.Run, group, err)
		}
		rb, err := obs.GetBytes(ctx, RulesObject(group))
		if err != nil {
			return nil, pkgerr.Newf("cluster: run %s: group %d: read the rules: %w", c.Run, group, err)
		}
		if SHA256(model) != s.ModelSHA256 || SHA256(rb) != s.RulesSHA256 {
			return nil, pkgerr.Newf("cluster: run %s: group %d: the stored result does not match the checksums %s reported", c.Run, group, s.Worker)
		}
		rules, err := DecodeRules(rb)
		if err != nil {
			return nil, pkgerr.Newf("cluster: run %s: group %d: %w", c.Run, group, err)
		}
		results[k] = Result{Group: group, Model: model, Rules: rules, Worker: s.Worker}
	}
	return results, nil
}

// settings returns the coordinator's settings with their defaults for the
// zero values.
func (c *Coordinator) settings() (ackWait time.Duration, attempts, replicas int, idleWarn, expire time.Duration) {
	ackWait, attempts, replicas = c.AckWait, c.MaxAttempts, max(1, c.Replicas)
	idleWarn, expire = c.IdleWarn, c.Expire
	if ackWait <= 0 {
		ackWait = 30 * time.Second
	}
	if attempts <= 0 {
		attempts = 4
	}
	if idleWarn <= 0 {
		idleWarn = 10 * time.Second
	}
	if expire <= 0 {
		expire = DefaultExpire
	}
	return
}

// watchExhausted subscribes to the advisories of jobs delivered
// MaxAttempts times without an ack; it sends their stream sequences.
func (c *Coordinator) watchExhausted(names Names) (chan uint64, *nats.Subscription, error) {
	exhausted := make(chan uint64, 16)
	adv, err := c.Conn.Subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+names.Jobs()+"."+ConsumerName, func(m *nats.Msg) {
		var a struct {
			StreamSeq uint64 `json:"stream_seq"`
		}
		if json.Unmarshal(m.Data, &a) == nil {
			select {
			case exhausted <- a.StreamSeq:
			default:
			}
		}
	})
	if err != nil {
		return nil, nil, pkgerr.Newf("cluster: run %s: subscribe to advisories: %w", c.Run, err)
	}
	return exhausted, adv, nil
}

// lost returns ErrConnectionLost, wrapped, once the connection is closed.
func (c *Coordinator) lost() error {
	if c.Lost == nil {
		if c.Conn.IsClosed() {
			return pkgerr.Newf("cluster: run %s: %w (the run is kept on the server: start the coordinator again with the same run id to resume it)", c.Run, ErrConnectionLost)
		}
		return nil
	}
	select {
	case <-c.Lost:
		return pkgerr.Newf("cluster: run %s: %w (the run is kept on the server: start the coordinator again with the same run id to resume it)", c.Run, ErrConnectionLost)
	default:
		return nil
	}
}

// cleanup removes the run's streams and object store, unless Keep.
func (c *Coordinator) cleanup(ctx context.Context, js jetstream.JetStream, names Names) {
	if c.Keep {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, s := range []string{names.Jobs(), names.Status()} {
		if err := js.DeleteStream(ctx, s); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			c.logf("remove stream %s: %v", s, err)
		}
	}
	if err := js.DeleteObjectStore(ctx, names.Bucket()); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
		c.logf("remove object store %s: %v", names.Bucket(), err)
	}
}

// tracker follows the state of every job from the status stream.
type tracker struct {
	attempts int
	state    []string // "", queued, running, done
	final    []Status // the done status of each group
	failures []int
	last     []Status // the last failure of each group
	done     int
	lastErr  string
}

func newTracker(groups, attempts int) *tracker {
	return &tracker{attempts: attempts, state: make([]string, groups), final: make([]Status, groups),
		failures: make([]int, groups), last: make([]Status, groups)}
}

func (t *tracker) isDone(group int) bool { return t.state[group-1] == StateDone }

func (t *tracker) queued(group int) {
	if t.state[group-1] == "" {
		t.state[group-1] = "queued"
	}
}

// apply records s; a job that failed on its last attempt is an error.
func (t *tracker) apply(s Status) error {
	i := s.Group - 1
	if t.state[i] == StateDone {
		// A job done twice (its worker died before the ack): the group
		// stays done and its first status, with its checksums, is kept.
		// The second worker's upload has replaced the stored objects; it
		// wrote the same bytes, since every worker runs the same
		// deterministic code on the same snapshot, and if it did not, the
		// checksum check when the results are read reports it. A later
		// failure or release does not undo the done.
		return nil
	}
	switch s.State {
	case StateRunning:
		t.state[i] = StateRunning
	case StateDone:
		t.state[i] = StateDone
		t.final[i] = s
		t.done++
	case StateFailed, StateRefused:
		t.state[i] = "queued"
		t.failures[i]++
		t.last[i] = s
		t.lastErr = fmt.Sprintf("group %d, attempt %d on %s: %s", s.Group, s.Attempt, s.Worker, s.Error)
		if s.Attempt >= t.attempts {
			what := "failed"
			if s.State == StateRefused {
				what = "was refused"
			}
			return fmt.Errorf("group %d %s on attempt %d of %d; the last on %s: %s: %w", s.Group, what, s.Attempt, t.attempts, s.Worker, s.Error, ErrJobFailed)
		}
	case StateRelease:
		t.state[i] = "queued"
	}
	return nil
}

func (t *tracker) lastError() string {
	if t.lastErr == "" {
		return "no worker reported an error: did the workers die?"
	}
	return "the last error: " + t.lastErr
}

func (t *tracker) counts() Counts {
	c := Counts{Groups: len(t.state)}
	for _, s := range t.state {
		switch s {
		case "queued":
			c.Queued++
		case StateRunning:
			c.Running++
		case StateDone:
			c.Done++
		}
	}
	return c
}
