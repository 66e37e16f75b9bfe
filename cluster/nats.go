package cluster

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"time"

	"github.com/drumql/drumql/miner"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Errors of clustered runs.
var (
	// ErrUnreachable is returned when the NATS server cannot be reached.
	ErrUnreachable = errors.New("cluster: the NATS server cannot be reached")
	// ErrConnectionLost is returned when the connection to the server is
	// lost during a run and not regained.
	ErrConnectionLost = errors.New("cluster: lost the connection to the NATS server")
	// ErrJobFailed is returned when a job failed on every attempt.
	ErrJobFailed = errors.New("cluster: a job failed on every attempt")
	// ErrRunMismatch is returned when a run id is reused with other
	// settings, groups, graph or drumql version.
	ErrRunMismatch = errors.New("cluster: the run id belongs to another run")
	// ErrBadRunID is returned for a run id that is not 1 to 64 letters,
	// digits, '-' or '_'.
	ErrBadRunID = errors.New("cluster: a run id is 1 to 64 letters, digits, '-' or '_'")
)

// AnnounceSubject is the core NATS subject on which a coordinator announces
// a new run (the payload is its id), so that idle workers look for jobs at
// once instead of at their next poll.
const AnnounceSubject = "drumql.runs"

// ConsumerName is the durable pull consumer of a run's job stream that every
// worker takes jobs from.
const ConsumerName = "workers"

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Names are the JetStream resources of one run, all named after its id so
// that concurrent runs on one server do not mix:
//
//	stream DRUMQL_<run>_JOBS     work queue, subjects drumql.<run>.job.<group>
//	stream DRUMQL_<run>_STATUS   subject drumql.<run>.status: what the workers report
//	object store DRUMQL_<run>    snapshot-<sha256>, run.json, model-<group>, rules-<group>
type Names struct {
	// Run is the run id.
	Run string
}

// NewNames checks run and returns its names.
func NewNames(run string) (Names, error) {
	if !runIDPattern.MatchString(run) {
		return Names{}, errorf("cluster: run id %q: %w", run, ErrBadRunID)
	}
	return Names{Run: run}, nil
}

// Jobs is the name of the job stream.
func (n Names) Jobs() string { return "DRUMQL_" + n.Run + "_JOBS" }

// JobSubject is the subject of group's job (groups count from 1).
func (n Names) JobSubject(group int) string { return "drumql." + n.Run + ".job." + strconv.Itoa(group) }

// JobSubjects matches every job subject of the run.
func (n Names) JobSubjects() string { return "drumql." + n.Run + ".job.*" }

// Status is the name of the status stream.
func (n Names) Status() string { return "DRUMQL_" + n.Run + "_STATUS" }

// StatusSubject is the subject of the status stream.
func (n Names) StatusSubject() string { return "drumql." + n.Run + ".status" }

// Bucket is the name of the run's object store.
func (n Names) Bucket() string { return "DRUMQL_" + n.Run }

// SnapshotObject is the object name of the snapshot with SHA-256 sum.
func SnapshotObject(sum string) string { return "snapshot-" + sum }

// ModelObject is the object name of group's model file.
func ModelObject(group int) string { return "model-" + strconv.Itoa(group) }

// RulesObject is the object name of group's rules (EncodeRules).
func RulesObject(group int) string { return "rules-" + strconv.Itoa(group) }

// runObject holds the run's plan (settings, groups, snapshot, version).
const runObject = "run.json"

// Job is one message of the job stream: one group to mine.
type Job struct {
	Run    string   `json:"run"`
	Group  int      `json:"group"` // from 1
	Groups int      `json:"groups"`
	Heads  []string `json:"heads"`
	// Options are the run's mining options; the group is mined with Heads
	// as their Config.Heads.
	Options miner.Options `json:"options"`
	// Snapshot is the SHA-256 of the snapshot file (its object is
	// SnapshotObject(Snapshot)).
	Snapshot string `json:"snapshot"`
	// Version is the coordinator's drumql version; a worker of another
	// version refuses the job.
	Version string `json:"version"`
}

// The states a worker reports for a job on the status stream.
const (
	StateRunning = "running"
	StateDone    = "done"
	StateFailed  = "failed"
	StateRefused = "refused"
	StateRelease = "released" // the worker was stopped (Ctrl-C) and gave the job back
)

// Status is one message of the status stream.
type Status struct {
	Group   int    `json:"group"`
	State   string `json:"state"`
	Worker  string `json:"worker"`
	Attempt int    `json:"attempt"`
	// Error is the worker's error (failed, refused).
	Error string `json:"error,omitempty"`
	// ModelSHA256 and RulesSHA256 are the sums of the stored result
	// objects (done).
	ModelSHA256 string `json:"model_sha256,omitempty"`
	RulesSHA256 string `json:"rules_sha256,omitempty"`
	Rules       int    `json:"rules,omitempty"`
	Epochs      int    `json:"epochs,omitempty"`
}

// ConnOptions are the connection settings of a coordinator or a worker.
type ConnOptions struct {
	// URL is the server URL, or several separated by commas.
	URL string
	// Name is the client name the server shows.
	Name string
	// Creds is a credentials file (nats.UserCredentials: JWT and NKey).
	Creds string
	// RootCAs are PEM files of the certificate authorities that sign the
	// server's certificate (nats.RootCAs).
	RootCAs []string
	// Cert and Key are a PEM client certificate and its key, for servers
	// that verify clients (nats.ClientCert).
	Cert, Key string
	// Retry is how long to keep trying to reconnect after the connection
	// is lost; 0 means forever.
	Retry time.Duration
	// Disconnected, Reconnected and Closed, if set, are told of the
	// connection's changes.
	Disconnected func(err error)
	Reconnected  func(url string)
	Closed       func()
}

// Connect connects to the server of o. A server that cannot be reached is
// an error wrapping ErrUnreachable.
func Connect(o ConnOptions) (*nats.Conn, error) {
	wait := time.Second
	opts := []nats.Option{nats.Name(o.Name), nats.ReconnectWait(wait), nats.Timeout(5 * time.Second)}
	if o.Retry > 0 {
		opts = append(opts, nats.MaxReconnects(max(1, int(o.Retry/wait))))
	} else {
		opts = append(opts, nats.MaxReconnects(-1))
	}
	if o.Creds != "" {
		opts = append(opts, nats.UserCredentials(o.Creds))
	}
	if len(o.RootCAs) > 0 {
		opts = append(opts, nats.RootCAs(o.RootCAs...))
	}
	if o.Cert != "" || o.Key != "" {
		if o.Cert == "" || o.Key == "" {
			return nil, errorf("cluster: a client certificate needs both the certificate and its key")
		}
		opts = append(opts, nats.ClientCert(o.Cert, o.Key))
	}
	if o.Disconnected != nil {
		opts = append(opts, nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { o.Disconnected(err) }))
	}
	if o.Reconnected != nil {
		opts = append(opts, nats.ReconnectHandler(func(nc *nats.Conn) { o.Reconnected(nc.ConnectedUrlRedacted()) }))
	}
	if o.Closed != nil {
		opts = append(opts, nats.ClosedHandler(func(*nats.Conn) { o.Closed() }))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, errorf("cluster: connect to %s: %w (%w)", o.URL, ErrUnreachable, err)
	}
	return nc, nil
}

// consistentReads turns off direct gets on the stream behind the object
// store obs (bucket) and returns the store bound again. With direct gets
// (the object store's default) a read may be answered by a replica that
// has not yet stored what a worker has just put: the coordinator, reading a
// group's result right after its "done" report, found no object. A get
// through the stream's leader sees every acknowledged put.
func consistentReads(ctx context.Context, js jetstream.JetStream, obs jetstream.ObjectStore, bucket string) (jetstream.ObjectStore, error) {
	st, err := js.Stream(ctx, "OBJ_"+bucket)
	if err != nil {
		return nil, err
	}
	cfg := st.CachedInfo().Config
	if !cfg.AllowDirect {
		return obs, nil
	}
	cfg.AllowDirect = false
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		return nil, err
	}
	return js.ObjectStore(ctx, bucket)
}
