package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/drumql/drumql/internal/pkgerr"
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
	// ErrBadURL is returned for a server address that is not a NATS one
	// (an http:// URL, a malformed address).
	ErrBadURL = errors.New("cluster: not a NATS server address (nats://HOST:PORT, tls://HOST:PORT, ws://HOST:PORT or HOST:PORT)")
	// ErrNoJetStream is returned when the server does not run JetStream.
	ErrNoJetStream = errors.New("cluster: JetStream is not enabled on this server (start nats-server with -js)")
	// ErrRunNotFound is returned for a run id that has no streams on the
	// server (never started, finished, or cancelled).
	ErrRunNotFound = errors.New("cluster: no such run on the server")
	// ErrRunCancelled is returned by a coordinator whose run was removed
	// from the server (drumql cluster cancel) while it waited.
	ErrRunCancelled = errors.New("cluster: the run was cancelled: its streams were removed from the server")
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
		return Names{}, pkgerr.Newf("cluster: run id %q: %w", run, ErrBadRunID)
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

// CheckURL checks a server address of ConnOptions.URL (one URL or several
// separated by commas): each is nats://, tls://, ws:// or wss:// with a
// host, or HOST:PORT, or a host name. Anything else is ErrBadURL, wrapped
// with the address.
func CheckURL(s string) error {
	for u := range strings.SplitSeq(s, ",") {
		if err := checkOneURL(strings.TrimSpace(u)); err != nil {
			return pkgerr.Newf("cluster: %q: %w", u, err)
		}
	}
	return nil
}

// hostPattern is a host name or an IPv4 address.
var hostPattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$`)

// checkOneURL checks one address of CheckURL.
func checkOneURL(s string) error {
	if s == "" {
		return ErrBadURL
	}
	hostPort := s
	if i := strings.Index(s, "://"); i >= 0 {
		u, err := url.Parse(s)
		if err != nil {
			return ErrBadURL
		}
		switch u.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return fmt.Errorf("%w: %s:// is not a NATS scheme", ErrBadURL, u.Scheme)
		}
		if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return ErrBadURL
		}
		hostPort = u.Host
	} else if strings.ContainsAny(s, "/@?#") {
		return ErrBadURL
	}
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		host, port = hostPort, ""
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return ErrBadURL
		}
	}
	if net.ParseIP(host) == nil && !hostPattern.MatchString(host) {
		return ErrBadURL
	}
	return nil
}

// Connect connects to the server of o. An address that is not a NATS one is
// an error wrapping ErrBadURL, a server that cannot be reached one wrapping
// ErrUnreachable, and a server without JetStream one wrapping
// ErrNoJetStream.
func Connect(o ConnOptions) (*nats.Conn, error) {
	if err := CheckURL(o.URL); err != nil {
		return nil, err
	}
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
			return nil, pkgerr.Newf("cluster: a client certificate needs both the certificate and its key")
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
		return nil, pkgerr.Newf("cluster: connect to %s: %w (%w)", o.URL, ErrUnreachable, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := checkJetStream(ctx, nc); errors.Is(err, ErrNoJetStream) {
		nc.Close()
		return nil, pkgerr.Newf("cluster: %s: %w", nc.ConnectedUrlRedacted(), err)
	}
	return nc, nil
}

// checkJetStream returns ErrNoJetStream when the server of nc answers that
// it has no JetStream (or nothing answers JetStream's API); other errors
// (a timeout, a cluster still electing its leader) are returned as they
// are.
func checkJetStream(ctx context.Context, nc *nats.Conn) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	_, err = js.AccountInfo(ctx)
	return jetStreamErr(err)
}

// jetStreamErr turns the errors that mean "no JetStream on this server"
// into ErrNoJetStream.
func jetStreamErr(err error) error {
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) ||
		errors.Is(err, nats.ErrNoResponders) {
		return ErrNoJetStream
	}
	return err
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
