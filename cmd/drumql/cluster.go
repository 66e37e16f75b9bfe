package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/drumql/drumql/cluster"
	"github.com/drumql/drumql/miner"
)

// clusterFlags are drumql mine's flags for mining the head groups on
// drumql workers (drumql worker) over a NATS JetStream server.
type clusterFlags struct {
	Cluster     string        `placeholder:"nats://HOST:PORT" help:"Mine the head groups on drumql workers over this NATS JetStream server (several URLs: comma-separated). This process keeps the store, ships its snapshot to the workers and writes the same files as mining here; the rules are byte-identical."`
	RunID       string        `name:"run-id" placeholder:"ID" help:"With --cluster: the run's id (default: a new random one). Started again with the id of an interrupted run, the coordinator resumes it: finished groups are not mined again."`
	Keep        bool          `help:"With --cluster: keep the run's streams and objects on the server when it ends."`
	AckWait     time.Duration `default:"30s" placeholder:"D" help:"With --cluster: a job whose worker sends no heartbeat for D goes to another worker (default ${default})."`
	MaxAttempts int           `default:"4" placeholder:"N" help:"With --cluster: the run stops when a job has failed N times (default ${default})."`
	Replicas    int           `default:"1" placeholder:"N" help:"With --cluster: servers that keep each stream of the run, at most the cluster's size (default ${default})."`
	Reconnect   time.Duration `default:"30s" placeholder:"D" help:"With --cluster: how long to try to reconnect to a lost server before stopping (the run can then be resumed; default ${default})."`
	natsFlags
}

// natsFlags are the connection options of a real deployment, passed to the
// NATS client.
type natsFlags struct {
	Creds   string   `placeholder:"FILE" help:"NATS credentials file (user JWT and NKey seed)."`
	TLSCA   []string `name:"tls-ca" sep:"," placeholder:"FILE" help:"PEM file(s) of the certificate authorities of the server's TLS certificate."`
	TLSCert string   `name:"tls-cert" placeholder:"FILE" help:"PEM client certificate, for servers that verify clients (with --tls-key)."`
	TLSKey  string   `name:"tls-key" placeholder:"FILE" help:"PEM key of --tls-cert."`
}

// connOptions are the client options of the flags.
func (f natsFlags) connOptions(url, name string) cluster.ConnOptions {
	return cluster.ConnOptions{URL: url, Name: name, Creds: f.Creds, RootCAs: f.TLSCA, Cert: f.TLSCert, Key: f.TLSKey}
}

// buildVersion is the version a coordinator and its workers must share:
// the release, and the commit when the build recorded one.
func buildVersion() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				v += "+" + s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				v += "-modified"
			}
		}
	}
	return v
}

// newRunID returns a random run id.
func newRunID() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "r" + hex.EncodeToString(b[:]), nil
}

// clusterSnapshot returns the bytes of the snapshot the workers get: the
// file of --snapshot, or the store's written now.
func (c *mineCmd) clusterSnapshot(e *env, src miner.GraphSource) ([]byte, error) {
	if c.Snapshot != "" {
		return os.ReadFile(c.Snapshot)
	}
	var b bytes.Buffer
	if err := miner.WriteSnapshot(e.ctx, &b, src); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// mineCluster mines the --head-groups groups on the workers of --cluster
// (the coordinator's side), each with opt and its heads; it returns the
// result and the bytes of the group models as the workers sent them.
func (c *mineCmd) mineCluster(e *env, src miner.GraphSource, g *miner.Graph, opt miner.Options) (*miner.Result, [][]byte, error) {
	groups, err := miner.HeadGroups(src, g, c.Heads, c.HeadGroups)
	if err != nil {
		return nil, nil, err
	}
	opt.Config.Heads = nil // each job's are its group's
	run := c.RunID
	if run == "" {
		var err error
		if run, err = newRunID(); err != nil {
			return nil, nil, err
		}
	}
	if _, err := cluster.NewNames(run); err != nil {
		return nil, nil, inputErr(fmt.Errorf("mine: --run-id: %w", err))
	}
	data, err := c.clusterSnapshot(e, src)
	if err != nil {
		return nil, nil, fmt.Errorf("mine --cluster: snapshot: %w", err)
	}
	var once sync.Once
	lost := make(chan struct{})
	opts := c.connOptions(c.Cluster, "drumql mine "+run)
	opts.Retry = c.Reconnect
	opts.Closed = func() { once.Do(func() { close(lost) }) }
	say := func(format string, args ...any) {
		if !e.cli.Quiet {
			fmt.Fprintf(e.stderr, "mine: run %s: "+format+"\n", append([]any{run}, args...)...)
		}
	}
	opts.Disconnected = func(err error) {
		if err == nil {
			return // closed by us
		}
		say("lost the connection to the server (%v); reconnecting for up to %s", err, c.Reconnect)
	}
	opts.Reconnected = func(url string) { say("reconnected to %s", url) }
	nc, err := cluster.Connect(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("mine --cluster: %w\nhint: is a NATS server with JetStream (nats-server -js) running at %s?", err, c.Cluster)
	}
	defer nc.Close()
	say("%d head groups on %s; interrupted, it resumes with --run-id %s", len(groups), nc.ConnectedUrlRedacted(), run)
	co := &cluster.Coordinator{Conn: nc, Run: run, Version: buildVersion(), Keep: c.Keep, AckWait: c.AckWait,
		MaxAttempts: c.MaxAttempts, Replicas: c.Replicas, Lost: lost, Logf: say,
		Progress: func(n cluster.Counts) {
			say("%d queued, %d running, %d done of %d", n.Queued, n.Running, n.Done, n.Groups)
		}}
	results, err := co.Mine(e.ctx, cluster.Plan{Snapshot: data, Options: opt, Groups: groups})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, nil, fmt.Errorf("mine: interrupted; the run is kept on the server: resume it with --run-id %s: %w", run, err)
		}
		return nil, nil, fmt.Errorf("mine --cluster: %w", err)
	}
	r := &miner.Result{Groups: groups}
	var files [][]byte
	var lists [][]miner.MinedRule
	for _, res := range results {
		m, err := miner.Load(bytes.NewReader(res.Model))
		if err != nil {
			return nil, nil, fmt.Errorf("mine --cluster: group %d from %s: %w", res.Group, res.Worker, err)
		}
		r.Models = append(r.Models, m)
		files = append(files, res.Model)
		lists = append(lists, res.Rules)
	}
	r.Rules = miner.MergeRules(lists...)
	if !c.Keep {
		say("done; its streams and objects were removed")
	}
	return r, files, nil
}
