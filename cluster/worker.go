package cluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/drumql/drumql/internal/atomicfile"
	"github.com/drumql/drumql/internal/pkgerr"
	"github.com/drumql/drumql/miner"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Worker takes jobs from the runs on a NATS JetStream server and mines
// them. The zero value of every field but Conn, Name and Version means its
// default.
type Worker struct {
	// Conn is the connection to the server.
	Conn *nats.Conn
	// Name names the worker in the status messages (e.g. host:pid).
	Name string
	// Version is the worker's drumql version: it refuses the jobs of
	// another version.
	Version string
	// Threads bounds the goroutines of training and extraction (0: all
	// cores); it never changes the result.
	Threads int
	// CacheDir keeps the snapshots fetched, named by their SHA-256, so that
	// they are fetched once per machine; empty: they are kept in memory
	// only.
	CacheDir string
	// Poll is how often an idle worker looks for new runs besides the
	// announcements. Default 2s.
	Poll time.Duration
	// Logf, if set, is told what the worker does.
	Logf func(format string, args ...any)
	// MaxMemory, if positive, makes the worker fail the jobs whose training
	// and rule extraction it estimates (miner.EstimateMemory) to need more
	// bytes than that.
	MaxMemory int64
	// Progress, if set, sees the training progress of every job.
	Progress func(Job, miner.Progress)

	// The graph of the last snapshot, kept for the next job of the run.
	graphSum string
	graphSrc miner.Source
	graph    *miner.Graph
}

func (w *Worker) logf(format string, args ...any) {
	if w.Logf != nil {
		w.Logf(format, args...)
	}
}

// Run takes and mines jobs until ctx is cancelled (Ctrl-C): the job being
// mined is then given back to the queue (it is delivered to another worker
// at once) and Run returns nil. It returns an error only when the server
// cannot be used at all (ErrNoJetStream: the server has no JetStream).
func (w *Worker) Run(ctx context.Context) error {
	js, err := jetstream.New(w.Conn)
	if err != nil {
		return pkgerr.Newf("cluster: worker: jetstream: %w", err)
	}
	poll := w.Poll
	if poll <= 0 {
		poll = 2 * time.Second
	}
	wake := make(chan struct{}, 1)
	sub, err := w.Conn.Subscribe(AnnounceSubject, func(*nats.Msg) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return pkgerr.Newf("cluster: worker: subscribe to %s: %w", AnnounceSubject, err)
	}
	defer sub.Unsubscribe()
	for ctx.Err() == nil {
		took := false
		streams, err := w.runStreams(ctx, js)
		if errors.Is(err, ErrNoJetStream) {
			return pkgerr.Newf("cluster: worker: %s: %w", w.Conn.ConnectedUrlRedacted(), err)
		}
		for _, stream := range streams {
			cons, err := js.Consumer(ctx, stream, ConsumerName)
			if err != nil {
				continue // a run being set up, or just removed
			}
			msg, err := cons.Next(jetstream.FetchMaxWait(200 * time.Millisecond))
			if err != nil {
				continue // no job, or a run just removed
			}
			took = true
			w.handle(ctx, js, cons, msg)
			break
		}
		if !took {
			select {
			case <-ctx.Done():
			case <-wake:
			case <-time.After(poll):
			}
		}
	}
	return nil
}

// runStreams lists the job streams of the runs on the server, sorted. An
// error that means the server has no JetStream is returned as
// ErrNoJetStream; others are logged (the next poll tries again).
func (w *Worker) runStreams(ctx context.Context, js jetstream.JetStream) ([]string, error) {
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	l := js.StreamNames(lctx, jetstream.WithStreamListSubject("drumql.*.job.*"))
	var names []string
	for n := range l.Name() {
		names = append(names, n)
	}
	if err := l.Err(); err != nil && ctx.Err() == nil {
		if err := jetStreamErr(err); errors.Is(err, ErrNoJetStream) {
			return nil, err
		}
		w.logf("list the runs: %v", err)
	}
	slices.Sort(names)
	return names, nil
}

// handle mines the job of msg and acknowledges it once the result is
// stored and reported.
func (w *Worker) handle(ctx context.Context, js jetstream.JetStream, cons jetstream.Consumer, msg jetstream.Msg) {
	j := w.newJobRun(js, msg)
	if j == nil {
		return
	}
	if j.job.Version != w.Version {
		err := fmt.Sprintf("this worker runs drumql %s, the run needs %s (the bytes could differ)", w.Version, j.job.Version)
		w.logf("%s: refused: %s", j.what, err)
		j.report(ctx, Status{State: StateRefused, Error: err})
		msg.NakWithDelay(time.Second)
		return
	}
	ackWait := 30 * time.Second
	if ci := cons.CachedInfo(); ci != nil && ci.Config.AckWait > 0 {
		ackWait = ci.Config.AckWait
	}
	stop := heartbeat(msg, max(ackWait/3, 50*time.Millisecond))
	defer stop()
	w.logf("%s: started", j.what)
	j.report(ctx, Status{State: StateRunning})
	start := time.Now()
	obs, res := j.mine(ctx)
	if res == nil {
		return
	}
	j.store(ctx, obs, res, start)
}

// jobRun is a job a worker handles: its message, the attempt it is, and
// what the log calls it.
type jobRun struct {
	w       *Worker
	js      jetstream.JetStream
	msg     jetstream.Msg
	job     Job
	names   Names
	attempt int
	what    string
}

// newJobRun decodes the job of msg. A malformed job is terminated (it is
// not delivered again) and newJobRun returns nil.
func (w *Worker) newJobRun(js jetstream.JetStream, msg jetstream.Msg) *jobRun {
	attempt := 1
	if md, err := msg.Metadata(); err == nil {
		attempt = int(md.NumDelivered)
	}
	var job Job
	if err := json.Unmarshal(msg.Data(), &job); err != nil || job.Group < 1 {
		w.logf("%s: malformed job, dropped: %q", msg.Subject(), msg.Data())
		msg.TermWithReason("malformed job")
		return nil
	}
	names, err := NewNames(job.Run)
	if err != nil {
		msg.TermWithReason(err.Error())
		return nil
	}
	what := fmt.Sprintf("run %s: group %d of %d (%d head relations, attempt %d)", job.Run, job.Group, job.Groups, len(job.Heads), attempt)
	return &jobRun{w: w, js: js, msg: msg, job: job, names: names, attempt: attempt, what: what}
}

// report publishes s, with the job's group, worker and attempt, on the
// run's status stream.
func (j *jobRun) report(ctx context.Context, s Status) {
	s.Group, s.Worker, s.Attempt = j.job.Group, j.w.Name, j.attempt
	b, _ := json.Marshal(s)
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := j.js.Publish(pctx, j.names.StatusSubject(), b); err != nil {
		j.w.logf("%s: report %s: %v", j.what, s.State, err)
	}
}

// fail reports the job failed with err and gives it back to the queue,
// to be delivered again after a second.
func (j *jobRun) fail(ctx context.Context, err error) {
	j.w.logf("%s: failed: %v", j.what, err)
	j.report(ctx, Status{State: StateFailed, Error: err.Error()})
	j.msg.NakWithDelay(time.Second)
}

// release gives the job back after Ctrl-C.
func (j *jobRun) release(ctx context.Context) {
	j.report(ctx, Status{State: StateRelease})
	if err := j.msg.Nak(); err != nil {
		j.w.logf("%s: give the job back: %v (it is delivered again after the ack wait)", j.what, err)
		return
	}
	j.w.logf("%s: stopped; the job was given back to the queue", j.what)
}

// mine loads the job's snapshot and mines its group; it returns the run's
// object store and the result. When that fails, the job is failed, or
// given back after Ctrl-C, and the result is nil.
func (j *jobRun) mine(ctx context.Context) (jetstream.ObjectStore, *miner.Result) {
	w, job := j.w, j.job
	obs, err := j.js.ObjectStore(ctx, j.names.Bucket())
	if err != nil {
		j.fail(ctx, fmt.Errorf("object store %s: %w", j.names.Bucket(), err))
		return nil, nil
	}
	src, g, err := w.load(ctx, obs, job.Snapshot)
	if err != nil {
		if ctx.Err() != nil {
			j.release(ctx)
			return nil, nil
		}
		j.fail(ctx, err)
		return nil, nil
	}
	opt := job.Options
	opt.Config.Heads, opt.Config.Threads = job.Heads, w.Threads
	if w.MaxMemory > 0 {
		if need := miner.EstimateMemory(miner.ShapeOf(g.Snapshot(), w.validCount()), opt.Config, opt.RuleStep()); need > w.MaxMemory {
			j.fail(ctx, fmt.Errorf("mining would need about %d MB of memory, more than this worker's limit of %d MB", need>>20, w.MaxMemory>>20))
			return nil, nil
		}
	}
	var progress func(miner.Progress)
	if w.Progress != nil {
		progress = func(p miner.Progress) { w.Progress(job, p) }
	}
	res, err := miner.Mine(ctx, src, g, opt, progress)
	if ctx.Err() != nil {
		j.release(ctx)
		return nil, nil
	}
	if err != nil {
		j.fail(ctx, err)
		return nil, nil
	}
	return obs, res
}

// store saves the model and the rules of res in the run's object store
// (even after Ctrl-C), reports the job done with their checksums and
// acknowledges it; start is when the job started, for the log.
func (j *jobRun) store(ctx context.Context, obs jetstream.ObjectStore, res *miner.Result, start time.Time) {
	model, rules := res.Models[0], res.Rules
	var mb bytes.Buffer
	if err := model.Save(&mb); err != nil {
		j.fail(ctx, err)
		return
	}
	rb, err := EncodeRules(rules)
	if err != nil {
		j.fail(ctx, err)
		return
	}
	sctx := context.WithoutCancel(ctx) // a finished job is stored even after Ctrl-C
	if _, err := obs.PutBytes(sctx, ModelObject(j.job.Group), mb.Bytes()); err != nil {
		j.fail(ctx, fmt.Errorf("store the model: %w", err))
		return
	}
	if _, err := obs.PutBytes(sctx, RulesObject(j.job.Group), rb); err != nil {
		j.fail(ctx, fmt.Errorf("store the rules: %w", err))
		return
	}
	j.report(ctx, Status{State: StateDone, ModelSHA256: SHA256(mb.Bytes()), RulesSHA256: SHA256(rb), Rules: len(rules), Epochs: len(model.History())})
	actx, cancel := context.WithTimeout(sctx, 10*time.Second)
	defer cancel()
	if err := j.msg.DoubleAck(actx); err != nil {
		j.w.logf("%s: done, but the ack was lost (%v): the job will run again", j.what, err)
		return
	}
	j.w.logf("%s: done in %s: %d rules", j.what, time.Since(start).Round(time.Millisecond), len(rules))
}

// validCount is the number of triples of the valid split of the graph in
// memory.
func (w *Worker) validCount() int {
	n := 0
	for _, err := range w.graphSrc.Split("valid") {
		if err != nil {
			break
		}
		n++
	}
	return n
}

// heartbeat tells the server every interval that msg is being worked on,
// until the returned function is called.
func heartbeat(msg jetstream.Msg, interval time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				msg.InProgress()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// load returns the graph of the snapshot with SHA-256 sum: the one in
// memory, the cached file, or the object fetched from the run's store.
func (w *Worker) load(ctx context.Context, obs jetstream.ObjectStore, sum string) (miner.Source, *miner.Graph, error) {
	if w.graph != nil && w.graphSum == sum {
		return w.graphSrc, w.graph, nil
	}
	w.graph, w.graphSrc, w.graphSum = nil, nil, ""
	var data []byte
	cached := ""
	if w.CacheDir != "" {
		cached = filepath.Join(w.CacheDir, sum+".snap")
		if b, err := os.ReadFile(cached); err == nil && SHA256(b) == sum {
			data = b
			w.logf("snapshot %.12s: from the cache %s", sum, cached)
		}
	}
	if data == nil {
		r, err := obs.Get(ctx, SnapshotObject(sum))
		if err != nil {
			return nil, nil, fmt.Errorf("fetch snapshot %s: %w", sum, err)
		}
		h := sha256.New()
		var b bytes.Buffer
		_, err = io.Copy(io.MultiWriter(&b, h), r)
		r.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("fetch snapshot %s: %w", sum, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != sum {
			return nil, nil, fmt.Errorf("fetch snapshot %s: the bytes have SHA-256 %s", sum, got)
		}
		data = b.Bytes()
		w.logf("snapshot %.12s: fetched %d bytes", sum, len(data))
		if cached != "" {
			if err := writeCache(cached, data); err != nil {
				w.logf("snapshot %.12s: not cached: %v", sum, err)
			}
		}
	}
	f, err := miner.ReadSnapshot(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot %s: %w", sum, err)
	}
	snap, err := f.Snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	g, err := miner.NewGraph(f, snap)
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot %s: %w", sum, err)
	}
	w.graph, w.graphSrc, w.graphSum = g, f, sum
	return f, g, nil
}

// writeCache writes a cached snapshot through a temporary file and a
// rename, so that a half-written file is never read.
func writeCache(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data)
}
